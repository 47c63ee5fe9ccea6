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
        The product's tour, in five steps; each is printed with the command that does it on its own, and those
          commands, run in order in a fresh folder, print the same and write the same reports.
          1. Validate the experiments folder.
          2. Simulate users with the truth of <experiments>/simulation/chorus-plus-truth.json (the shipped Chorus+
             story, a global holdout among its experiments; --truth names another) into the database: users arrive
             over --days days and are observed --tail-days more, so monthly plans renew several times; safeguards are
             evaluated every check_minutes of the story and a stopped arm's later users get the control's paywall, as
             a server would do (the same seed stores the same events and stops, so a rerun adds nothing).
          3. Per experiment an HTML, a Markdown and a JSON report split by country and platform into Reports/, with
             Reports/index.html linking them (the global holdout's line: what the experiments add up to).
          4. 'abctl forecast backtest --at 60' on the story.
          5. The safeguard stops in force.
          Then a summary: each verdict, the decision date where there is none yet, the forecast per arm, any safeguard
          stop, and the holdout's users and the experiments' combined effect. Reports read the data as of the end of
          the story ("observed until"), so the same seed gives the same reports; the database records that moment,
          and 'abctl report' on it reads the data as of it too.
        """,
        options: [
            .users,
            .seed,
            .days,
            .tailDays,
            .db,
            .experiments,
            .truth,
            .out,
        ],
        run: run
    )

    /// Days after the start at which the demo backtests the forecast.
    static let backtestDays = [60]
    /// The dimensions every demo report is split by.
    static let segments = ["country", "platform"]

    static func run(_ args: ParsedArguments) throws -> ExitCode {
        let folder = args[.experiments], db = args[.db], out = args[.out]
        let users = args[.users], days = args[.days], tail = args[.tailDays]
        let seed = UInt64(args[.seed])
        let tour = Tour(experiments: folder, db: db)

        print("abctl demo: the Chorus+ story in five steps; after each '$' is the command that does that step on its own.")
        tour.step(1, "Check the experiment files.", ["validate", folder], withExperiments: false)
        let validation = ExperimentFiles.validate(paths: [folder])
        print(indent(DiagnosticPrinter.text(validation, color: Terminal.stdoutSupportsColor)))
        guard let catalog = validation.catalog else { throw CLIError.checkFailed("fix the experiment files, then run the demo again") }

        let truthPath = args[.truth] ?? folder + "/simulation/chorus-plus-truth.json"
        guard args[.truth] != nil || FileManager.default.fileExists(atPath: truthPath) else {
            throw CLIError.usage("no truth file at '\(truthPath)'; name one with --truth", command: "demo")
        }
        let truth = try SimulateCommand.loadTruth(truthPath, command: "demo")
        try SimulateCommand.checkPlacements(truth, catalog, command: "demo")
        // The whole window, whatever the present: the demo's dates are fixed, and so are its reports.
        // `--until` says so to `abctl simulate`, which otherwise stops at the present.
        let assigner: Assigner
        do { assigner = try Assigner(catalog: catalog) } catch { throw CLIError.runtime("cannot build the assigner: \(error)") }
        let asOf = Simulator(catalog: catalog, assigner: assigner, truth: truth,
                             options: .init(users: users, seed: seed, days: days, tailDays: tail)).observedUntil
        let now = RFC3339.format(asOf)
        tour.step(2, "Simulate \(DemoIndexPage.count(users)) users arriving over \(days) days through the app's placements, observed \(tail) days more, with the truth's rates; safeguards are evaluated as the story unfolds, as a server would.",
                  ["simulate", "--users", String(users), "--seed", String(seed), "--days", String(days), "--tail-days", String(tail),
                   "--until", now, "--safeguards", "--truth", truthPath])
        let result = try SimulateCommand.simulate(catalog: catalog, truth: truth, users: users, seed: seed, days: days, tailDays: tail,
                                                  until: asOf, safeguards: true, db: db)
        print(indent(SimulateCommand.describe(result)))

        let store = try StoreOpener.open(db)
        defer { store.close() }
        // Reports read the data as of the end of the story, and so does a later `abctl report` on
        // this store: it finds the moment recorded here. The other commands read ABCTL_NOW.
        try ReportCommand.runtime { try store.recordObservedUntil(Timestamp(asOf)) }
        let by = segments.flatMap { ["--by", $0] }
        tour.step(3, "Every experiment's report, split by \(segments.joined(separator: " and ")), with \(out)/index.html linking them.",
                  ["report"] + by + ["--format", "html", "--out", out], now: now)
        for format in ["markdown", "json"] { tour.command(["report"] + by + ["--format", format, "--out", out], now: now) }
        do { try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true) } catch {
            throw CLIError.runtime("cannot create '\(out)': \(error.localizedDescription)")
        }
        var options = ReportOptions(clock: asOf, products: catalog.products)
        options.readNamespaces(of: catalog)
        options.segments = segments
        var reports: [Report] = []
        for experiment in catalog.experiments {
            let report = try ReportCommand.runtime { try ReportBuilder.report(source: store, experiment: experiment, options: options) }
            for (ext, body) in [("html", HTMLReportRenderer.render(report)), ("md", MarkdownReportRenderer.render(report)),
                                ("json", JSONReportRenderer.render(report) + "\n")] {
                try write(body, to: "\(out)/\(experiment.id).\(ext)")
            }
            reports.append(report)
        }
        let holdouts = Set(catalog.experiments.filter(\.isHoldout).map(\.id))
        try write(DemoIndexPage.render(reports, holdouts: holdouts, products: catalog.products, login: truth.population.login, asOf: asOf), to: "\(out)/index.html")
        print("   \(Plural.count(reports.count, "experiment")) × html, md, json; \(out)/index.html (the demo's own page)")

        tour.step(4, "How well the revenue forecast made on day \(backtestDays.map(String.init).joined(separator: ", ")) did.",
                  ["forecast", "backtest"] + backtestDays.flatMap { ["--at", String($0)] }, now: now)
        let summaries = try ReportCommand.runtime { try store.experiments() }
        var rows: [ForecastBacktest.Row] = []
        for experiment in catalog.experiments where summaries.contains(where: { $0.experiment == experiment.id }) {
            let first = summaries.first { $0.experiment == experiment.id }?.firstExposure.date
            rows += try ReportCommand.runtime {
                try ForecastBacktest.run(store: store, experiment: experiment, products: catalog.products, atDays: backtestDays, now: asOf, firstExposure: first)
            }
        }
        print(indent(ForecastBacktest.text(rows, currency: catalog.products.currency)))

        tour.step(5, "The safeguard stops made during the story.", ["safeguards", "check"], now: now)
        let stops = try ReportCommand.runtime { try store.safeguardStopsInForce() }.filter { $0.stoppedAt.date <= asOf }
        print(indent(SafeguardsCommand.inForceText(stops)))

        print("\n" + DemoSummary.text(reports, holdouts: holdouts, products: catalog.products, login: truth.population.login, asOf: asOf, out: out))
        print(tour.console)
        return .success
    }

    /// Prints each step with the command that does it: the experiments folder and database given
    /// only where they are not the defaults, and ABCTL_NOW for the commands that read the clock.
    struct Tour {
        let experiments: String
        let db: String

        func step(_ n: Int, _ what: String, _ words: [String], now: String? = nil, withExperiments: Bool = true) {
            print("\(n). \(what)")
            command(words, now: now, withExperiments: withExperiments)
        }

        func command(_ words: [String], now: String? = nil, withExperiments: Bool = true) {
            print("   $ " + (now.map { "ABCTL_NOW=\($0) " } ?? "") + line(words, withExperiments: withExperiments))
        }

        /// `abctl WORDS`, with the experiments folder and database where they are not the defaults.
        func line(_ words: [String], withExperiments: Bool = true) -> String {
            var line = words
            if withExperiments && experiments != "Experiments" { line += ["--experiments", experiments] }
            if words.first != "validate" && db != "abctl.sqlite" { line += ["--db", Self.withoutPassword(db)] }
            return "abctl " + line.map(Self.shellWord).joined(separator: " ")
        }

        /// How to open the console on the demo's data: `abctl serve` on loopback needs no key, and
        /// reads the data as of the end of the story, as the reports do. (Not a step of the tour:
        /// the server runs until stopped.)
        var console: String {
            "Open the console on this data (on loopback it needs no key):\n  \(line(["serve", "--port", "8080"]))\n  then http://127.0.0.1:8080/ in a browser"
        }

        /// A PostgreSQL URL's password never reaches the output: the command shows `PASSWORD` in its place.
        static func withoutPassword(_ db: String) -> String {
            guard StoreOpener.postgresScheme(db) != nil else { return db }
            return db.replacingOccurrences(of: #"(://[^:/@?]+:)[^@/?]*@"#, with: "$1PASSWORD@", options: .regularExpression)
                .replacingOccurrences(of: #"([?&]password=)[^&]*"#, with: "$1PASSWORD", options: [.regularExpression, .caseInsensitive])
        }

        /// A word as a shell reads it: quoted only when it needs to be.
        static func shellWord(_ word: String) -> String {
            let plain = !word.isEmpty && word.unicodeScalars.allSatisfy { ($0.isASCII && CharacterSet.alphanumerics.contains($0)) || "-_./:=@+,".unicodeScalars.contains($0) }
            return plain ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
        }
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

private extension OptionKeys {
    static let users = OptionKey<Int>("--users", value: "n", help: "Simulated users.", range: 1...Int.max, default: 100_000)
    static let seed = OptionKey<Int>("--seed", value: "s", help: "Random seed.", range: 0...Int.max, default: 42)
    static let days = OptionKey<Int>("--days", value: "d", help: "Days over which users arrive.", range: 1...1000, default: 60)
    static let tailDays = OptionKey<Int>("--tail-days", value: "t", help: "Days after the last arrival that events are still observed.", range: 0...1000, default: 60)
    static let truth = OptionKey<String?>("--truth", value: "file", help: "True rates per variant (default: <experiments>/simulation/chorus-plus-truth.json).")
    static let out = OptionKey<String>("--out", value: "dir", help: "Where reports go.", default: "Reports")
}
