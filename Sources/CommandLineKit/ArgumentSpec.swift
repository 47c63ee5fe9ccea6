/// A positional argument. When none is given, the first argument's environment variable (when
/// set and not empty), else its default, stands in for it.
public struct ArgumentSpec: Sendable {
    public var name: String
    public var help: String
    public var environment: String?
    public var defaultValue: String?

    public init(name: String, help: String, environment: String? = nil, default defaultValue: String? = nil) {
        self.name = name
        self.help = help
        self.environment = environment
        self.defaultValue = defaultValue
    }
}
