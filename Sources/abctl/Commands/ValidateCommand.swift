import ExperimentDefinitions

enum ValidateCommand {
    static let spec = CommandSpec(
        name: "validate",
        abstract: "Check experiment files; for editors and CI.",
        usage: "[<path> ...] [--format <format>]",
        arguments: [ArgumentSpec(name: "path", help: "Experiment files or folders (default: Experiments/).")],
        options: [OptionSpec(name: "--format", valueName: "format", help: "Output format.", choices: ["text", "json", "github"])],
        run: { _ in .success }
    )
}
