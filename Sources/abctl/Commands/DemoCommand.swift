import Assignment
import CommandLineKit
import Events
import ExperimentDefinitions
import Foundation
import Reporting
import Simulation

/// `abctl demo`: the product's tour in one go: validate, simulate a story long enough for monthly
/// plans to renew (with safeguards watching it), backtest the forecast, write every report and an
/// index, and print a summary.
enum DemoCommand {
    static let spec = CommandSpec(
        name: "demo",
        abstract: "Validate Experiments/, simulate a story, backtest the forecast and write reports, in one go.",
        discussion: """
        Validate the experiments folder, then simulate users with the truth of <experiments>/simulation/chorus-plus-truth.json
          (the shipped Chorus+ story; --truth names another) into the database: users arrive over --days days and are
          observed --tail-days more, so monthly plans renew several times; safeguards are evaluated every check_minutes
          of the story and a stopped arm's later users get the control's paywall, as a server would do (the same seed
          stores the same events and stops, so a rerun adds nothing). Then 'abctl forecast backtest --at 60' on the
          story, and per experiment an HTML, a Markdown and a JSON report split by country and platform into Reports/,
          with Reports/index.html linking them, and a summary: each verdict, the decision date where there is none yet,
          the forecast per arm and any safeguard stop. Reports read the data as of the end of the story ("observed
          until"), so the same seed gives the same reports; the database records that moment, and 'abctl report' on it
          reads the data as of it too.
        """,
        options: [
            OptionSpec(name: "--users", valueName: "n", help: "Simulated users.", type: .positiveInteger, default: "100000"),
            OptionSpec(name: "--seed", valueName: "s", help: "Random seed.", type: .integer(0...Int.max), default: "42"),
            OptionSpec(name: "--days", valueName: "d", help: "Days over which users arrive.", type: .integer(1...1000), default: "60"),
            OptionSpec(name: "--tail-days", valueName: "t", help: "Days after the last arrival that events are still observed.",
                       type: .integer(0...1000), default: "60"),
            .database,
            .experiments,
            OptionSpec(name: "--truth", valueName: "file", help: "True rates per variant (default: <experiments>/simulation/chorus-plus-truth.json)."),
            OptionSpec(name: "--out", valueName: "dir", help: "Where reports go.", default: "Reports"),
        ],
        run: run
    )

    /// Days after the start at which the demo backtests the forecast.
    static let backtestDays = [60]
    /// The dimensions every demo report is split by.
    static let segments = ["country", "platform"]

    static func run(_ args: ParsedArguments) throws -> ExitCode {
        let folder = try args.required("--experiments"), db = try args.required("--db"), out = try args.required("--out")
        let users = try args.required(int: "--users"), days = try args.required(int: "--days"), tail = try args.required(int: "--tail-days")
        let seed = UInt64(try args.required(int: "--seed"))

        print("1. validate \(folder)")
        let validation = ExperimentFiles.validate(paths: [folder])
        print(indent(DiagnosticPrinter.text(validation, color: Terminal.stdoutSupportsColor)))
        guard let catalog = validation.catalog else { throw CLIError.checkFailed("fix the experiment files, then run the demo again") }

        let truthPath = args.value("--truth") ?? folder + "/simulation/chorus-plus-truth.json"
        guard args.value("--truth") != nil || FileManager.default.fileExists(atPath: truthPath) else {
            throw CLIError.usage("no truth file at '\(truthPath)'; name one with --truth", command: "demo")
        }
        let truth = try SimulateCommand.loadTruth(truthPath, command: "demo")
        print("2. simulate \(users) users arriving over \(days) days, observed \(days + tail) days (seed \(seed)), into \(StoreOpener.displayName(db)) with the truth of \(truthPath)")
        try SimulateCommand.checkPlacements(truth, catalog, command: "demo")
        // The whole window, whatever the present: the demo's dates are fixed, and so are its reports.
        let result = try SimulateCommand.simulate(catalog: catalog, truth: truth, users: users, seed: seed, days: days, tailDays: tail,
                                                  safeguards: true, db: db)
        print(indent(SimulateCommand.describe(result)))
        let asOf = result.0.observedUntil

        let store = try StoreOpener.open(db)
        defer { store.close() }
        // Reports read the data as of the end of the story, and so does a later `abctl report` on
        // this store: it finds the moment recorded here.
        try ReportCommand.runtime { try store.recordObservedUntil(Timestamp(asOf)) }
        let stops = try ReportCommand.runtime { try store.safeguardStops(experiment: nil) }.filter { $0.stoppedAt.date <= asOf }
        for stop in stops { print("   safeguard stop: \(stop.experiment) arm \(stop.arm) on \(stop.metric) at \(RFC3339.format(stop.stoppedAt.date))") }

        print("3. abctl forecast backtest --at \(backtestDays.map(String.init).joined(separator: " --at ")) (as of \(RFC3339.format(asOf)))")
        let summaries = try ReportCommand.runtime { try store.experiments() }
        var rows: [ForecastBacktest.Row] = []
        for experiment in catalog.experiments where summaries.contains(where: { $0.experiment == experiment.id }) {
            let first = summaries.first { $0.experiment == experiment.id }?.firstExposure.date
            rows += try ReportCommand.runtime {
                try ForecastBacktest.run(store: store, experiment: experiment, products: catalog.products, atDays: backtestDays, now: asOf, firstExposure: first)
            }
        }
        print(indent(ForecastBacktest.text(rows, currency: catalog.products.currency)))

        print("4. report into \(out)/ (by \(segments.joined(separator: " and ")))")
        do { try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true) } catch {
            throw CLIError.runtime("cannot create '\(out)': \(error.localizedDescription)")
        }
        var options = ReportOptions(generatedAt: asOf, products: catalog.products)
        options.segments = segments
        var reports: [Report] = []
        for experiment in catalog.experiments {
            let report = try ReportCommand.runtime { try ReportBuilder.report(store: store, experiment: experiment, options: options) }
            for (ext, body) in [("html", HTMLReportRenderer.render(report)), ("md", MarkdownReportRenderer.render(report)),
                                ("json", JSONReportRenderer.render(report) + "\n")] {
                try write(body, to: "\(out)/\(experiment.id).\(ext)")
            }
            reports.append(report)
        }
        try write(DemoIndexPage.render(reports, asOf: asOf), to: "\(out)/index.html")
        print("   \(Plural.count(reports.count, "experiment")) × html, md, json; \(out)/index.html")

        print("\n" + DemoSummary.text(reports, asOf: asOf, out: out))
        return .success
    }

    static func write(_ body: String, to path: String) throws {
        do { try body.write(toFile: path, atomically: true, encoding: .utf8) } catch {
            throw CLIError.runtime("cannot write '\(path)': \(error.localizedDescription)")
        }
    }

    static func indent(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { $0.isEmpty ? "" : "   " + $0 }.joined(separator: "\n")
            .trimmingCharacters(in: .newlines)
    }
}
