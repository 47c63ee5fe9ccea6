/// Describes one command: its help text, its arguments and options, and what it runs; or, for a
/// command with subcommands (`safeguards check`, `safeguards reset`), those subcommands.
///
/// Every command is a `CommandSpec` in its own file, listed once in the tool's registry. The parser,
/// the help printer and the exit-code mapping are shared; a command reads typed, resolved values.
public struct CommandSpec: Sendable {
    public var name: String
    /// One line for the parent's `SUBCOMMANDS:` list.
    public var abstract: String
    /// A paragraph for `TOOL help NAME`; `abstract` when empty.
    public var discussion: String
    /// The usage line after `TOOL NAME`, written by hand only where it shows what the declarations
    /// cannot; nil: generated from them.
    public var synopsis: String?
    public var arguments: [ArgumentSpec]
    /// The command's options, each declared once as an `OptionKey`: name, value type, default, environment variable.
    public var options: [OptionKeys]
    /// The environment settings it reads besides its options' variables, each checked before it runs.
    public var settings: [SettingSpec]
    /// Its subcommands, in the order its help lists them; empty for a command that runs.
    public var subcommands: [CommandSpec]
    /// nil exactly when the command has subcommands.
    public var run: (@Sendable (ParsedArguments) throws -> ExitCode)?

    /// A command that runs.
    public init(name: String, abstract: String, discussion: String = "", synopsis: String? = nil, arguments: [ArgumentSpec] = [],
                options: [OptionKeys] = [], settings: [SettingSpec] = [], run: @escaping @Sendable (ParsedArguments) throws -> ExitCode) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.synopsis = synopsis
        self.arguments = arguments
        self.options = options
        self.settings = settings
        self.subcommands = []
        self.run = run
    }

    /// A command that only groups subcommands: `TOOL NAME SUB …` runs `SUB`.
    public init(name: String, abstract: String, discussion: String = "", subcommands: [CommandSpec]) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.synopsis = nil
        self.arguments = []
        self.options = []
        self.settings = []
        self.subcommands = subcommands
        self.run = nil
    }
}

extension CommandSpec {
    /// The usage line after `TOOL NAME`: the synopsis where one is written, `<subcommand>` for a
    /// group, else each argument and each option as declared (`<file>`, `[<experiment>]`,
    /// `[<path> ...]`, `--users <n>`, `[--db <path>]`, `[--by <dimension> ...]`, `[--strict]`).
    public var usage: String {
        if !subcommands.isEmpty { return "<subcommand>" }
        return synopsis ?? (arguments.map(\.usage) + options.map(\.spec.usage)).joined(separator: " ")
    }
}

/// The process exit codes: 0 success, 1 a failed check, 2 a usage error, 3 a runtime failure.
public enum ExitCode: Int32, Sendable {
    case success = 0
    case checkFailed = 1
    case usage = 2
    case runtime = 3
}
