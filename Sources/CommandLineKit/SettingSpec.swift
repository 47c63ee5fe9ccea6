import ExperimentDefinitions

/// An environment setting a command reads (`ABCTL_NOW`, `ABCTL_CACHE_MIB`, …), declared beside its
/// options: shown under `ENVIRONMENT:` in help, and checked by the parser before the command runs,
/// so a bad value is a usage error naming the variable instead of a silent default.
public struct SettingSpec: Sendable {
    public enum Kind: Sendable {
        /// An RFC 3339 time.
        case time
        /// A whole number of at least `minimum`.
        case integer(minimum: Int)
        /// Free text the command checks itself (keys, secrets); its value is never echoed.
        case secret
    }

    public var variable: String
    public var kind: Kind
    public var help: String

    public init(_ variable: String, _ kind: Kind, help: String) {
        self.variable = variable
        self.kind = kind
        self.help = help
    }

    /// nil when `value` is one this setting takes; otherwise what is wrong with it.
    func problem(_ value: String) -> String? {
        switch kind {
        case .time:
            RFC3339.parse(value) == nil ? "\(variable) is not an RFC 3339 time: '\(value)' (write e.g. 2026-12-01T00:00:00Z)" : nil
        case .integer(let minimum):
            Int(value).map { $0 >= minimum } == true ? nil : "\(variable) must be a whole number of at least \(minimum), got '\(value)'"
        case .secret:
            nil
        }
    }

    /// `ABCTL_NOW`: the fixed clock of the commands that tell time.
    public static let now = SettingSpec("ABCTL_NOW", .time, help: "A fixed clock (RFC 3339), for reproducible output.")
}
