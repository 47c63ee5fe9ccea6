/// An environment setting a command reads (`ABCTL_NOW`, `ABCTL_CACHE_MIB`, …), declared beside its
/// options: shown under `ENVIRONMENT:` in help, and checked by the parser before the command runs,
/// so a bad value is a usage error naming the variable instead of a silent default.
public struct SettingSpec: Sendable {
    public enum Kind: Sendable {
        /// A whole number of at least `minimum`.
        case integer(minimum: Int)
        /// Text the declaration checks: the closure says what is wrong with a value (a whole
        /// message, naming the variable), or nil when it is one the setting takes.
        case checked(@Sendable (_ value: String) -> String?)
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
        case .integer(let minimum):
            Int(value).map { $0 >= minimum } == true ? nil : "\(variable) must be a whole number of at least \(minimum), got '\(value)'"
        case .checked(let problem):
            problem(value)
        case .secret:
            nil
        }
    }
}
