import ExperimentDefinitions

/// A tool with subcommands: dispatches `TOOL <subcommand> ...` to a `CommandSpec`, handling `help`,
/// `--help` and `--version`, and turns errors into messages and exit codes.
public struct CommandLineTool: Sendable {
    public var name: String
    /// The `OVERVIEW:` line of `TOOL --help`.
    public var overview: String
    public var version: String
    /// In the order `TOOL --help` lists them.
    public var commands: [CommandSpec]

    public init(name: String, overview: String, version: String, commands: [CommandSpec]) {
        self.name = name
        self.overview = overview
        self.version = version
        self.commands = commands
    }

    var help: HelpPrinter { HelpPrinter(tool: name, overview: overview) }

    public func run(_ argv: [String], environment: Environment = .process) -> ExitCode {
        do {
            return try dispatch(argv, environment: environment)
        } catch {
            return ErrorReporter(tool: name).exitCode(for: error)
        }
    }

    private func dispatch(_ argv: [String], environment: Environment) throws -> ExitCode {
        guard let first = argv.first else {
            print(help.overview(commands: commands), terminator: "")
            return .usage
        }
        if first == "-h" || first == "--help" {
            print(help.overview(commands: commands), terminator: "")
            return .success
        }
        if first == "--version" {
            print(version)
            return .success
        }
        if first == "help" {
            guard argv.count > 1 else {
                print(help.overview(commands: commands), terminator: "")
                return .success
            }
            print(help.help(for: try find(argv[1])), terminator: "")
            return .success
        }
        let spec = try find(first)
        let rest = Array(argv.dropFirst())
        if rest.contains("-h") || rest.contains("--help") {
            print(help.help(for: spec), terminator: "")
            return .success
        }
        return try spec.run(try ArgumentParser.parse(rest, for: spec, environment: environment))
    }

    private func find(_ command: String) throws -> CommandSpec {
        if let spec = commands.first(where: { $0.name == command }) { return spec }
        var message = "Unknown subcommand '\(command)'"
        if let guess = Spelling.closest(to: command, in: commands.map(\.name)) { message += ". Did you mean '\(guess)'?" }
        throw CLIError.usage(message, command: nil)
    }
}
