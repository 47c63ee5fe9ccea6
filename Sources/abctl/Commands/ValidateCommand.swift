import Assignment
import CommandLineKit
import ExperimentDefinitions
import Foundation

/// `abctl validate`: checks experiment files for editors and CI.
enum ValidateCommand {
    static let spec = CommandSpec(
        name: "validate",
        abstract: "Check experiment files; for editors and CI.",
        discussion: """
        Check experiment files and products.json, reporting every problem in one run.
          A file named on its own is also checked against the other experiment files of its
          folder (duplicate ids, namespace overlaps), as CI sees one changed file.
          A file that cannot be read is reported once; the checks that needed it are named
          in one note instead of failing one by one.
          --against REF also checks what changed since REF (a folder, or a git revision read
          with git, e.g. origin/main) in the experiments REF was running: an edit that moves
          users between arms or out of the experiment is an error naming the field and the
          share of REF's enrolled users whose answer changes; a removed file is an error; an
          arm's paywall edited is a warning. A problem between a changed and an unchanged file
          is reported at the changed file.
          Exits 0 when valid (warnings included, unless --strict), 1 when any file has an error
          (or a warning with --strict) or the folder has no experiment file, 2 on bad arguments
          (a path that does not exist, a REF that is neither a folder nor a revision).
        """,
        arguments: [ArgumentSpec(name: "path", help: "Experiment files or folders.", arity: .many, environment: "ABCTL_EXPERIMENTS", default: "Experiments")],
        options: [
            .validateFormat,
            .against,
            .strict,
            .winnerStore,
        ],
        settings: [.now],
        run: run
    )

    static func run(_ args: ParsedArguments) throws -> ExitCode {
        // A path that does not exist is a mistake in the command, not in the files: a usage error (exit 2).
        for path in args.positionals where !FileManager.default.fileExists(atPath: path) {
            throw CLIError.usage("no such file or folder: '\(path)'", command: "validate")
        }
        let fixedNow = FixedClock.now(args)
        let now = fixedNow ?? Date()
        var report: ExperimentLoader.Report
        if let ref = args[.against] {
            do {
                report = try ExperimentFiles.validate(paths: args.positionals, against: ref, now: now)
            } catch {
                throw CLIError.usage("--against: \(error.description)", command: "validate")
            }
        } else {
            report = ExperimentFiles.validate(paths: args.positionals, now: now)
        }
        if let db = args[.winnerStore] { try WinnerHint.fill(&report, db: db, fixedNow: fixedNow) }
        let output: String
        switch args[.validateFormat] {
        case "json": output = DiagnosticPrinter.json(report, strict: args[.strict])
        case "github": output = DiagnosticPrinter.github(report)
        default: output = DiagnosticPrinter.text(report, color: Terminal.stdoutSupportsColor, strict: args[.strict])
        }
        print(output, terminator: "")
        let failed = report.errorCount > 0 || (args[.strict] && report.warningCount > 0)
        return failed ? .checkFailed : .success
    }
}

private extension OptionKeys {
    static let validateFormat = OptionKey<String>("--format", value: "format", help: "text: file:line:column lines; json: a list; github: Actions annotations.",
                                                  choices: ["text", "json", "github"], default: "text")
    static let against = OptionKey<String?>("--against", value: "ref", help: "Also check what changed since REF: a folder, or a git revision (e.g. origin/main).")
    static let strict = OptionKey<Bool>(flag: "--strict", help: "Fail (exit 1) on warnings too.")
    /// Unlike the shared `--db`, no default: without it, validate opens no store.
    static let winnerStore = OptionKey<String?>("--db", value: "path", help: "A store: a shipped experiment's missing-winner hint then names the arm the report's verdict ships.")
}
