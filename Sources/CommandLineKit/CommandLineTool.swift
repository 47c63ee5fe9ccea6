/// A tool with subcommands: dispatches `TOOL <subcommand> [<subcommand> …] ...` to a `CommandSpec`,
/// handling `help`, `-h`, `--help` and `--version`, and turns errors into messages and exit codes.
public struct CommandLineTool: Sendable {
    public var name: String
    /// The `OVERVIEW:` line of `TOOL --help`.
    public var overview: String
    public var version: String
    /// In the order `TOOL --help` lists them.
    public var commands: [CommandSpec]
    /// The did-you-mean of an unknown subcommand or option.
    public var suggest: Suggester?

    public init(name: String, overview: String, version: String, commands: [CommandSpec], suggest: Suggester? = nil) {
        self.name = name
        self.overview = overview
        self.version = version
        self.commands = commands
        self.suggest = suggest
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
            let (spec, path, _) = try resolve(Array(argv.dropFirst()))
            print(help.help(for: spec, path: path), terminator: "")
            return .success
        }
        let (spec, path, rest) = try resolve(argv)
        let command = path.joined(separator: " ")
        if rest.contains("-h") || rest.contains("--help") {
            print(help.help(for: spec, path: path), terminator: "")
            return .success
        }
        guard let run = spec.run else {
            // A group given no subcommand: its help, as the tool's own when given no command.
            guard let given = rest.first else {
                print(help.help(for: spec, path: path), terminator: "")
                return .usage
            }
            throw CLIError.usage("expected a subcommand (\(spec.subcommands.map(\.name).joined(separator: ", "))), got '\(given)'", command: command)
        }
        return try run(try ArgumentParser.parse(rest, for: spec, command: command, environment: environment, suggest: suggest))
    }

    /// The command the leading words name, its path (`["safeguards", "check"]`) and the words after
    /// it: a group's subcommand is the next word, unless that word is an option.
    func resolve(_ words: [String]) throws -> (CommandSpec, [String], [String]) {
        var spec = try find(words[0], in: commands, parent: [])
        var path = [spec.name]
        var rest = Array(words.dropFirst())
        while !spec.subcommands.isEmpty, let next = rest.first, !next.hasPrefix("-") {
            spec = try find(next, in: spec.subcommands, parent: path)
            path.append(spec.name)
            rest.removeFirst()
        }
        return (spec, path, rest)
    }

    private func find(_ command: String, in candidates: [CommandSpec], parent: [String]) throws -> CommandSpec {
        if let spec = candidates.first(where: { $0.name == command }) { return spec }
        var message = "Unknown subcommand '\(command)'"
        if let guess = suggest?(command, candidates.map(\.name)) { message += ". Did you mean '\(guess)'?" }
        throw CLIError.usage(message, command: parent.isEmpty ? nil : parent.joined(separator: " "))
    }
}
