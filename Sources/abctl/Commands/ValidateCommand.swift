import Assignment
import CommandLineKit
import ExperimentDefinitions
import Foundation

/// `abctl validate`: checks experiment files for editors and CI (SPEC §6).
enum ValidateCommand {
    static let spec = CommandSpec(
        name: "validate",
        abstract: "Check experiment files; for editors and CI.",
        discussion: """
        Check experiment files and products.json, reporting every problem in one run.
          A file named on its own is also checked against the other experiment files of its
          folder (duplicate ids, namespace overlaps), as CI sees one changed file.
          Exits 0 when valid (warnings included), 1 when any file has an error, 2 on bad arguments.
        """,
        usage: "[<path> ...] [--format <format>]",
        arguments: [ArgumentSpec(name: "path", help: "Experiment files or folders.", environment: "ABCTL_EXPERIMENTS", default: "Experiments")],
        options: [
            OptionSpec(name: "--format", valueName: "format", help: "text: file:line:column lines; json: a list; github: Actions annotations.",
                       choices: ["text", "json", "github"], default: "text"),
        ],
        run: run
    )

    static func run(_ args: ParsedArguments) throws -> ExitCode {
        let report = ExperimentFiles.validate(paths: args.positionals, now: try FixedClock.now(command: "validate") ?? Date())
        let output: String
        switch args.value("--format") {
        case "json": output = DiagnosticPrinter.json(report)
        case "github": output = DiagnosticPrinter.github(report)
        default: output = DiagnosticPrinter.text(report, color: Terminal.stdoutSupportsColor)
        }
        print(output, terminator: "")
        return report.errorCount > 0 ? .checkFailed : .success
    }
}
