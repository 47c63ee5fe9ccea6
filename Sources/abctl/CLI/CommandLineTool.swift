import ExperimentDefinitions

/// Dispatches `abctl <subcommand> ...` to a `CommandSpec`, handling `help`, `--help` and `--version`.
enum CommandLineTool {
    static let version = "0.1.0"

    static func run(_ argv: [String], commands: [CommandSpec]) -> ExitCode {
        do {
            return try dispatch(argv, commands: commands)
        } catch {
            return ErrorReporter.exitCode(for: error)
        }
    }

    private static func dispatch(_ argv: [String], commands: [CommandSpec]) throws -> ExitCode {
        guard let first = argv.first else {
            print(HelpPrinter.overview(commands: commands), terminator: "")
            return .usage
        }
        if first == "-h" || first == "--help" {
            print(HelpPrinter.overview(commands: commands), terminator: "")
            return .success
        }
        if first == "--version" {
            print(version)
            return .success
        }
        if first == "help" {
            guard argv.count > 1 else {
                print(HelpPrinter.overview(commands: commands), terminator: "")
                return .success
            }
            let spec = try find(argv[1], in: commands)
            print(HelpPrinter.help(for: spec), terminator: "")
            return .success
        }
        let spec = try find(first, in: commands)
        let rest = Array(argv.dropFirst())
        if rest.contains("-h") || rest.contains("--help") {
            print(HelpPrinter.help(for: spec), terminator: "")
            return .success
        }
        return try spec.run(try ArgumentParser.parse(rest, for: spec))
    }

    private static func find(_ name: String, in commands: [CommandSpec]) throws -> CommandSpec {
        if let spec = commands.first(where: { $0.name == name }) { return spec }
        var message = "Unknown subcommand '\(name)'"
        if let guess = Spelling.closest(to: name, in: commands.map(\.name)) { message += ". Did you mean '\(guess)'?" }
        throw CLIError.usage(message, command: nil)
    }
}
