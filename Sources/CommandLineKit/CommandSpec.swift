/// Describes one subcommand: its help text, its arguments and options, and what it runs.
///
/// Every command is a `CommandSpec` in its own file, listed once in the tool's registry. The parser,
/// the help printer and the exit-code mapping are shared; a command reads typed, resolved values.
public struct CommandSpec: Sendable {
    public var name: String
    /// One line for `TOOL --help`.
    public var abstract: String
    /// A paragraph for `TOOL help NAME`; `abstract` when empty.
    public var discussion: String
    /// The usage line after `TOOL NAME`, e.g. `[PATH ...] [--format <format>]`.
    public var usage: String
    public var arguments: [ArgumentSpec]
    /// The command's options, each declared once: name, value type, default, environment variable.
    public var options: [OptionSpec]
    public var run: @Sendable (ParsedArguments) throws -> ExitCode

    public init(name: String, abstract: String, discussion: String = "", usage: String, arguments: [ArgumentSpec] = [],
                options: [OptionSpec] = [], run: @escaping @Sendable (ParsedArguments) throws -> ExitCode) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.usage = usage
        self.arguments = arguments
        self.options = options
        self.run = run
    }
}

/// The process exit codes: 0 success, 1 a failed check, 2 a usage error, 3 a runtime failure.
public enum ExitCode: Int32, Sendable {
    case success = 0
    case checkFailed = 1
    case usage = 2
    case runtime = 3
}
