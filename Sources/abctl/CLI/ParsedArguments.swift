import Foundation

/// What the parser made of a command line.
struct ParsedArguments: Sendable {
    var command: String
    var positionals: [String] = []
    var values: [String: [String]] = [:]
    var flags: Set<String> = []

    /// The last value of `--name`, or nil when absent.
    func value(_ name: String) -> String? { values[name]?.last }
    func all(_ name: String) -> [String] { values[name] ?? [] }
    func flag(_ name: String) -> Bool { flags.contains(name) }

    func required(_ name: String) throws -> String {
        guard let v = value(name) else { throw CLIError.usage("missing required option '\(name)'", command: command) }
        return v
    }

    func int(_ name: String) throws -> Int? {
        guard let text = value(name) else { return nil }
        guard let v = Int(text) else { throw CLIError.usage("'\(name)' expects a whole number, got '\(text)'", command: command) }
        return v
    }

    func double(_ name: String) throws -> Double? {
        guard let text = value(name) else { return nil }
        guard let v = Double(text), v.isFinite else {
            throw CLIError.usage("'\(name)' expects a number, got '\(text)'", command: command)
        }
        return v
    }
}
