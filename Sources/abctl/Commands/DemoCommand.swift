import Assignment
import CommandLineKit
import Events
import ExperimentDefinitions
import Foundation
import Reporting
import Simulation

/// `abctl demo`: the main job in one go: validate, simulate, report.
enum DemoCommand {
    static let spec = CommandSpec(
        name: "demo",
        abstract: "Validate Experiments/, simulate users and write reports, in one go.",
        discussion: """
        Validate the experiments folder, simulate users with the truth of <experiments>/simulation/chorus-plus-truth.json
          (the shipped Chorus+ story; --truth names another) into the
          database (the same seed stores the same events, so a rerun adds nothing), then write an HTML and
          a Markdown report per experiment into Reports/ and print each verdict. Reports read the data as of
          the end of the simulated window ("observed until"), so the same seed gives the same reports; the
          database records that moment, and 'abctl report' on it reads the data as of it too.
        """,
        usage: "[--users <n>] [--seed <s>] [--days <d>] [--db <path>] [--experiments <dir>] [--truth <file>] [--out <dir>]",
        options: [
            OptionSpec(name: "--users", valueName: "n", help: "Simulated users.", type: .positiveInteger, default: "100000"),
            OptionSpec(name: "--seed", valueName: "s", help: "Random seed.", type: .integer(0...Int.max), default: "42"),
            OptionSpec(name: "--days", valueName: "d", help: "Days over which users arrive.", type: .integer(1...1000), default: "14"),
            .database,
            .experiments,
            OptionSpec(name: "--truth", valueName: "file", help: "True rates per variant (default: <experiments>/simulation/chorus-plus-truth.json)."),
            OptionSpec(name: "--out", valueName: "dir", help: "Where reports go.", default: "Reports"),
        ],
        run: run
    )

    static func run(_ args: ParsedArguments) throws -> ExitCode {
        let folder = try args.required("--experiments"), db = try args.required("--db"), out = try args.required("--out")
        let users = try args.required(int: "--users"), days = try args.required(int: "--days")
        let seed = UInt64(try args.required(int: "--seed"))

        print("1. validate \(folder)")
        let validation = ExperimentFiles.validate(paths: [folder])
        print(DiagnosticPrinter.text(validation, color: Terminal.stdoutSupportsColor).split(separator: "\n").map { "   " + $0 }.joined(separator: "\n"))
        guard let catalog = validation.catalog else { throw CLIError.checkFailed("fix the experiment files, then run the demo again") }

        let truthPath = args.value("--truth") ?? folder + "/simulation/chorus-plus-truth.json"
        guard args.value("--truth") != nil || FileManager.default.fileExists(atPath: truthPath) else {
            throw CLIError.usage("no truth file at '\(truthPath)'; name one with --truth", command: "demo")
        }
        let truth = try SimulateCommand.loadTruth(truthPath, command: "demo")
        print("2. simulate \(users) users (seed \(seed)) into \(StoreOpener.displayName(db)) with the truth of \(truthPath)")
        try SimulateCommand.checkPlacements(truth, catalog, command: "demo")
        // The whole window, whatever the present: the demo's dates are fixed, and so are its reports.
        let result = try SimulateCommand.simulate(catalog: catalog, truth: truth, users: users, seed: seed, days: days, db: db)
        print(SimulateCommand.describe(result).split(separator: "\n").map { "   " + $0 }.joined(separator: "\n"))

        print("3. report into \(out)/")
        do { try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true) } catch {
            throw CLIError.runtime("cannot create '\(out)': \(error.localizedDescription)")
        }
        let store = try StoreOpener.open(db)
        defer { store.close() }
        // Reports read the data as of the end of the simulated window, and so does a later
        // `abctl report` on this store: it finds the moment recorded here.
        try ReportCommand.runtime { try store.recordObservedUntil(Timestamp(result.0.observedUntil)) }
        let options = ReportOptions(generatedAt: result.0.observedUntil, products: catalog.products)
        for experiment in catalog.experiments {
            let report = try ReportCommand.runtime { try ReportBuilder.report(store: store, experiment: experiment, options: options) }
            var written: [String] = []
            for (ext, body) in [("html", HTMLReportRenderer.render(report)), ("md", MarkdownReportRenderer.render(report))] {
                let path = "\(out)/\(experiment.id).\(ext)"
                do { try body.write(toFile: path, atomically: true, encoding: .utf8) } catch {
                    throw CLIError.runtime("cannot write '\(path)': \(error.localizedDescription)")
                }
                written.append(path)
            }
            let verdict = report.decision.verdict.rawValue + (report.decision.winner.map { " (\($0))" } ?? "")
            print("   \(experiment.id): \(verdict), \(report.users) users")
            for reason in report.decision.reasons.prefix(2) { print("     - \(reason)") }
            print("     \(written.joined(separator: ", "))")
        }
        print("\nOpen \(out)/\(catalog.experiments.first?.id ?? "").html in a browser, or run 'abctl report <experiment>' for the full table.")
        return .success
    }
}
