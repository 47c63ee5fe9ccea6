import CommandLineKit
import Events
import ExperimentDefinitions
import Foundation
import Reporting

/// `abctl report`: the results of one experiment, or of every experiment with data.
///
/// Without `--out`, `text` and `json` go to standard output and `markdown`, `html` and `csv` are
/// written to `Reports/<experiment>.<ext>`; with `--out DIR` every format is written into DIR.
/// The data is read as of `--until`, else `ABCTL_NOW` (RFC 3339: a fixed clock, for reproducible
/// reports and tests), else the end of observation a demo recorded in the store, else now.
enum ReportCommand {
    static let formats = ["text", "markdown", "html", "json", "csv"]

    /// The report's inputs the API also takes as query parameters, each with its option: every
    /// value as text, checked by the one function the query parameters go through.
    static let parameters = ReportParameters.all.map { parameter in
        (parameter: parameter, key: OptionKey<[String]>(parameter.option, value: parameter.valueName, help: parameter.help,
                                                        repeatable: parameter.repeatable, default: parameter.defaultValue))
    }

    static let spec = CommandSpec(
        name: "report",
        abstract: "Report an experiment's results: verdict, health, metrics, survival, copy sources.",
        discussion: """
        Report an experiment's results for a product manager: the verdict (ship, keep_running, stop,
          inconclusive) with its reasons, health checks, every metric per variant with intervals, each variant
          against the control, subscription survival and the AI arm's copy sources. With no EXPERIMENT, one report
          per experiment with data. text and json print to standard output; markdown, html and csv are written to
          Reports/ (or every format to --out DIR). The data is read as of --until, else ABCTL_NOW, else the end of the
          simulated window when 'abctl demo' filled the database, else now.
        """,
        arguments: [ArgumentSpec(name: "experiment", help: "An experiment id (default: every experiment with data).")],
        options: [
            .db,
            .experiments,
            .reportFormat,
            .out,
        ] + parameters.map(\.key),
        settings: [.now],
        run: run
    )

    static func run(_ args: ParsedArguments) throws -> ExitCode {
        guard args.positionals.count <= 1 else {
            throw CLIError.usage("expected at most one <experiment>, got \(args.positionals.count)", command: "report")
        }
        let format = args[.reportFormat]
        let fixedNow = FixedClock.now(args)
        // The report's inputs are checked by the one function the API's query parameters go through.
        var options = ReportOptions()
        let pairs = parameters.flatMap { parameter, key in args[key].map { (name: parameter.name, value: $0) } }
        do {
            try ReportParameters.apply(pairs, to: &options, experiment: nil, spell: \.option)
        } catch {
            throw CLIError.usage(error.message, command: "report")
        }
        let catalog = try ExperimentFolder.load(args[.experiments])
        // An id the folder does not have is a usage error, found before the store is opened.
        let named = try args.positionals.first.map { try ExperimentArgument.resolve($0, in: catalog, command: "report") }
        let store = try StoreOpener.open(args[.db], .init(mustExist: true))
        defer { store.close() }
        // The as-of moment is the store's to settle (ReportInputs.asOf): --until, else ABCTL_NOW, else
        // where its data ends (a demo's simulation), else now.
        options.clock = fixedNow
        options.products = catalog.products
        options.currency = catalog.products.currency
        options.readNamespaces(of: catalog)

        var experiments: [Experiment] = []
        if let named {
            experiments = [named]
        } else {
            let withData = try runtime { try store.experiments() }.map(\.experiment)
            for id in withData {
                if let e = catalog.experiment(id) { experiments.append(e) } else {
                    FileHandle.standardError.write(Data("abctl: warning: experiment '\(id)' has data in the store but no file in the experiment folder; skipped\n".utf8))
                }
            }
            if experiments.isEmpty {
                FileHandle.standardError.write(Data("abctl: no experiment has data yet; store events with 'abctl ingest'\n".utf8))
                return .success
            }
        }

        let toStdout = args[.out] == nil && (format == "text" || format == "json")
        let folder = args[.out] ?? "Reports"
        if !toStdout {
            do { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) } catch {
                throw CLIError.runtime("cannot create '\(folder)': \(error.localizedDescription)")
            }
        }
        let color = Terminal.stdoutSupportsColor
        for experiment in experiments {
            do {
                try ReportParameters.checkSegments(options.segments, for: experiment, spell: \.option)
            } catch {
                throw CLIError.usage(error.message, command: "report")
            }
        }
        for (i, experiment) in experiments.enumerated() {
            let report = try runtime { try ReportBuilder.report(source: store, experiment: experiment, options: options) }
            let body: String
            let ext: String
            switch format {
            case "json": body = JSONReportRenderer.render(report) + "\n"; ext = "json"
            case "markdown": body = MarkdownReportRenderer.render(report); ext = "md"
            case "html": body = HTMLReportRenderer.render(report); ext = "html"
            case "csv": body = CSVReportRenderer.render(report); ext = "csv"
            default: body = TextReportRenderer.render(report, color: color && toStdout); ext = "txt"
            }
            if toStdout {
                let separator = i > 0 && format == "text" ? String(repeating: "=", count: 72) + "\n\n" : ""
                FileHandle.standardOutput.write(Data((separator + body).utf8))
            } else {
                let path = (folder as NSString).appendingPathComponent("\(experiment.id).\(ext)")
                do { try body.write(toFile: path, atomically: true, encoding: .utf8) } catch {
                    throw CLIError.runtime("cannot write '\(path)': \(error.localizedDescription)")
                }
                FileHandle.standardOutput.write(Data((path + "\n").utf8))
            }
        }
        return .success
    }

    /// Store and statistics failures are runtime failures (exit 3).
    static func runtime<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as CLIError { throw error } catch { throw CLIError.runtime("report failed: \(error)") }
    }
}

private extension OptionKeys {
    static let reportFormat = OptionKey<String>("--format", value: "format", help: "Output format.", choices: ReportCommand.formats, default: "text")
    static let out = OptionKey<String?>("--out", value: "dir", help: "Write every report into this folder as <experiment>.<ext>.")
}
