/// What the parser made of a command line: positionals, flags and every option's values with
/// the environment and defaults already applied and each value checked against its declared type.
public struct ParsedArguments: Sendable {
    /// Where an option's value came from.
    public enum Source: Sendable, Equatable {
        case commandLine
        case environment(String)
        case defaultValue
    }

    /// One value, typed as its option declares.
    public enum Value: Sendable, Equatable {
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
    }

    public var command: String
    public var positionals: [String] = []
    public var flags: Set<String> = []
    var values: [String: [Value]] = [:]
    var sources: [String: Source] = [:]

    public init(command: String) { self.command = command }

    /// The last value of `--name` (as text), or nil when it has none.
    public func value(_ name: String) -> String? { values[name]?.last?.text }

    /// Declared environment settings that are set (already checked), by variable.
    public var settings: [String: String] = [:]

    /// A declared setting's value, or nil when unset.
    public func setting(_ variable: String) -> String? { settings[variable] }
    /// Every value of a repeatable `--name`, in order.
    public func all(_ name: String) -> [String] { values[name]?.map(\.text) ?? [] }
    public func flag(_ name: String) -> Bool { flags.contains(name) }
    /// Where `--name`'s value came from, or nil when it has none.
    public func source(_ name: String) -> Source? { sources[name] }

    public func required(_ name: String) throws -> String {
        guard let v = value(name) else { throw CLIError.usage("missing required option '\(name)'", command: command) }
        return v
    }

    /// The value of an integer option that has a default or is required.
    public func required(int name: String) throws -> Int {
        guard let v = try int(name) else { throw CLIError.usage("missing required option '\(name)'", command: command) }
        return v
    }

    /// The value of a number option that has a default or is required.
    public func required(double name: String) throws -> Double {
        guard let v = try double(name) else { throw CLIError.usage("missing required option '\(name)'", command: command) }
        return v
    }

    /// The value of an option declared `.integer` (or a string option holding a whole number).
    public func int(_ name: String) throws -> Int? {
        switch values[name]?.last {
        case nil: return nil
        case .integer(let i)?: return i
        case let other?:
            guard let i = Int(other.text) else { throw CLIError.usage("'\(name)' expects a whole number, got '\(other.text)'", command: command) }
            return i
        }
    }

    /// The value of an option declared `.number` (or a string option holding a finite number).
    public func double(_ name: String) throws -> Double? {
        switch values[name]?.last {
        case nil: return nil
        case .number(let d)?: return d
        case .integer(let i)?: return Double(i)
        case .string(let text)?:
            guard let d = Double(text), d.isFinite else { throw CLIError.usage("'\(name)' expects a number, got '\(text)'", command: command) }
            return d
        }
    }
}
