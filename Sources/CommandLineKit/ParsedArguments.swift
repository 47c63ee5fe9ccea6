/// What the parser made of a command line: positionals, flags and every option's values with
/// the environment and defaults already applied and each value checked against its declared type.
/// A command reads an option through its key (`args[.db]`), typed by the key's declaration.
public struct ParsedArguments: Sendable {
    /// Where an option's value came from.
    public enum Source: Sendable, Equatable {
        case commandLine
        case environment(String)
        case defaultValue
    }

    /// One value, typed as its option declares.
    enum Value: Sendable, Equatable {
        case string(String)
        case integer(Int)
        case number(Double)

        var text: String {
            switch self {
            case .string(let s): s
            case .integer(let i): String(i)
            case .number(let d): String(d)
            }
        }

        var integer: Int? {
            if case .integer(let i) = self { i } else { nil }
        }

        var number: Double? {
            switch self {
            case .number(let d): d
            case .integer(let i): Double(i)
            case .string: nil
            }
        }
    }

    /// The command as its help hint names it: `report`, `safeguards check`.
    public var command: String
    public var positionals: [String] = []
    var flags: Set<String> = []
    var values: [String: [Value]] = [:]
    var sources: [String: Source] = [:]
    /// Declared environment settings that are set (already checked), by variable.
    var settings: [String: String] = [:]

    init(command: String) { self.command = command }

    /// The option's value, typed by its declaration.
    public subscript<V>(_ key: OptionKey<V>) -> V { key.read(self) }

    /// Where the option's value came from, or nil when it has none (a flag has none).
    public func source(of key: OptionKeys) -> Source? { sources[key.spec.name] }

    /// A declared setting's value, or nil when unset (or empty).
    public func setting(_ setting: SettingSpec) -> String? { settings[setting.variable] }

    func last(_ name: String) -> Value? { values[name]?.last }

    /// The value of an option that has a default or is required, which the parser gave a value.
    func declared(_ name: String) -> Value {
        guard let value = last(name) else { preconditionFailure("\(command) reads '\(name)' but does not declare it among its options") }
        return value
    }
}
