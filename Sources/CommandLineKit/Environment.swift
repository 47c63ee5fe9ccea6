import Foundation

/// The process environment as commands read it: a variable set to the empty string counts as
/// unset, as CI templates often export `NAME=""` for "no value".
public struct Environment: Sendable {
    public var variables: [String: String]

    public init(_ variables: [String: String]) { self.variables = variables }

    public static var process: Environment { Environment(ProcessInfo.processInfo.environment) }

    /// The variable's value, or nil when it is unset or empty.
    public subscript(name: String) -> String? {
        guard let value = variables[name], !value.isEmpty else { return nil }
        return value
    }
}
