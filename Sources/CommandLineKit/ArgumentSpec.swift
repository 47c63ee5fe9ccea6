/// A positional argument. When none is given, the first argument's environment variable (when
/// set and not empty), else its default, stands in for it.
public struct ArgumentSpec: Sendable {
    /// How many values the argument takes, as the usage line shows it.
    public enum Arity: Sendable {
        /// `<name>`
        case one
        /// `[<name>]`
        case optional
        /// `[<name> ...]`
        case many
    }

    public var name: String
    public var help: String
    public var arity: Arity
    public var environment: String?
    public var defaultValue: String?

    public init(name: String, help: String, arity: Arity = .optional, environment: String? = nil, default defaultValue: String? = nil) {
        self.name = name
        self.help = help
        self.arity = arity
        self.environment = environment
        self.defaultValue = defaultValue
    }

    /// The argument as the usage line shows it.
    public var usage: String {
        switch arity {
        case .one: "<\(name)>"
        case .optional: "[<\(name)>]"
        case .many: "[<\(name)> ...]"
        }
    }
}
