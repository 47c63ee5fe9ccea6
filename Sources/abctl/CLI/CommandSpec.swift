/// Describes one `abctl` subcommand: its help text, its options and what it runs.
///
/// Every command is a `CommandSpec` in its own file under `Commands/`, listed once in
/// `CommandRegistry.all`. The parser, the help printer and the exit-code mapping are shared.
struct CommandSpec: Sendable {
    var name: String
    /// One line for `abctl --help`.
    var abstract: String
    /// A paragraph for `abctl help NAME`; `abstract` when empty.
    var discussion: String = ""
    /// The usage line after `abctl NAME`, e.g. `[PATH ...] [--format <format>]`.
    var usage: String
    var arguments: [ArgumentSpec] = []
    var options: [OptionSpec] = []
    var run: @Sendable (ParsedArguments) throws -> ExitCode
}

/// A positional argument, for the help text.
struct ArgumentSpec: Sendable {
    var name: String
    var help: String
}

/// A `--name` option; with a `valueName` it takes a value, without it is a flag.
struct OptionSpec: Sendable {
    var name: String
    var valueName: String? = nil
    var help: String
    /// Accepted values, checked by the parser (e.g. a `--format` list).
    var choices: [String] = []
    var repeatable: Bool = false
    /// Environment variable read when the option is absent.
    var environment: String? = nil
}

/// The process exit codes of SPEC §6.
enum ExitCode: Int32, Sendable {
    case success = 0
    case checkFailed = 1
    case usage = 2
    case runtime = 3
}
