import CommandLineKit
import Events
import ExperimentDefinitions
import Foundation
import Reporting

/// `abctl report`: the results of one experiment, or of every experiment with data (SPEC §6, §8).
///
/// Without `--out`, `text` and `json` go to standard output and `markdown`, `html` and `csv` are
/// written to `Reports/<experiment>.<ext>`; with `--out DIR` every format is written into DIR.
/// The data is read as of `--until`, else `ABCTL_NOW` (RFC 3339: a fixed clock, for reproducible
/// reports and tests), else the end of observation a demo recorded in the store, else now.
enum ReportCommand {
    static let formats = ["text", "markdown", "html", "json", "csv"]

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
        usage: "[<experiment>] [--db <path>] [--experiments <dir>] [--format <format>] [--out <dir>] [--since <date>] [--until <date>] [--alpha <a>] [--by <dimension>]… [--min-segment-users <n>]",
        arguments: [ArgumentSpec(name: "experiment", help: "An experiment id (default: every experiment with data).")],
        options: [
            .database,
            .experiments,
            OptionSpec(name: "--format", valueName: "format", help: "Output format.", choices: formats, default: "text"),
            OptionSpec(name: "--out", valueName: "dir", help: "Write every report into this folder as <experiment>.<ext>."),
            OptionSpec(name: "--since", valueName: "date", help: "Only users first exposed at or after this time (RFC 3339 or YYYY-MM-DD)."),
            OptionSpec(name: "--until", valueName: "date", help: "Only users first exposed before this time; the data is read as of it (RFC 3339 or YYYY-MM-DD)."),
            OptionSpec(name: "--alpha", valueName: "a", help: "1 − confidence level (0.05 for 95% intervals).", type: .number, default: "0.05"),
            OptionSpec(name: "--by", valueName: "dimension", help: "Split the comparisons by a segment (placement, platform, country, language, app_version, new_user, or a name in the file's segments); repeatable. Exploratory: never changes the verdict.", repeatable: true),
            OptionSpec(name: "--min-segment-users", valueName: "n", help: "Values with fewer users in any arm are pooled into 'other'.", type: .number, default: "100"),
        ],
        run: run
    )

    static func run(_ args: ParsedArguments) throws -> ExitCode {
        guard args.positionals.count <= 1 else {
            throw CLIError.usage("expected at most one <experiment>, got \(args.positionals.count)", command: "report")
        }
        let format = try args.required("--format")
        let alpha = try args.required(double: "--alpha")
        guard alpha > 0 && alpha < 0.5 else { throw CLIError.usage("'--alpha' must be between 0 and 0.5, got \(alpha)", command: "report") }
        let since = try date(args.value("--since"), "--since")
        let until = try date(args.value("--until"), "--until")
        if let since, let until, since >= until { throw CLIError.usage("'--since' must be before '--until'", command: "report") }
        let fixedNow = try FixedClock.now(command: "report")
        let minSegmentUsers = try args.required(double: "--min-segment-users")
        guard minSegmentUsers >= 1, minSegmentUsers == minSegmentUsers.rounded() else {
            throw CLIError.usage("'--min-segment-users' must be a whole number of at least 1, got \(minSegmentUsers)", command: "report")
        }
        let dimensions = args.all("--by")
        let catalog = try ExperimentFolder.load(args.required("--experiments"))
        // An id the folder does not have is a usage error, found before the store is opened.
        if let id = args.positionals.first, catalog.experiment(id) == nil {
            throw CLIError.usage(unknownExperiment(id, known: catalog.experiments.map(\.id)), command: "report")
        }
        let store = try StoreOpener.open(args.required("--db"), .init(mustExist: true))
        defer { store.close() }
        // Data that ends at a recorded moment (a demo's simulation) is read as of it, unless
        // --until or ABCTL_NOW names a time.
        let observedUntil = until == nil && fixedNow == nil ? try runtime { try store.observedUntil() }?.date : nil
        let options = ReportOptions(alpha: alpha, generatedAt: observedUntil ?? fixedNow ?? Date(), since: since, until: until,
                                    segments: dimensions, minSegmentUsers: Int(minSegmentUsers), products: catalog.products)

        var experiments: [Experiment] = []
        if let id = args.positionals.first {
            experiments = catalog.experiment(id).map { [$0] } ?? []
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

        let toStdout = args.value("--out") == nil && (format == "text" || format == "json")
        let folder = args.value("--out") ?? "Reports"
        if !toStdout {
            do { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) } catch {
                throw CLIError.runtime("cannot create '\(folder)': \(error.localizedDescription)")
            }
        }
        let color = Terminal.stdoutSupportsColor
        for experiment in experiments {
            for dimension in dimensions where !experiment.segmentDimensions.contains(dimension) {
                let known = experiment.segmentDimensions
                let hint = Spelling.closest(to: dimension, in: known).map { " Did you mean '\($0)'?" } ?? ""
                throw CLIError.usage("'\(experiment.id)' has no segment '\(dimension)'; --by takes \(known.joined(separator: ", ")).\(hint)", command: "report")
            }
        }
        for (i, experiment) in experiments.enumerated() {
            let report = try runtime { try ReportBuilder.report(store: store, experiment: experiment, options: options) }
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

    /// RFC 3339, or a plain `YYYY-MM-DD` meaning midnight UTC.
    static func date(_ text: String?, _ option: String) throws -> Date? {
        guard let text else { return nil }
        if let d = RFC3339.parse(text) { return d }
        if text.count == 10, let d = RFC3339.parse(text + "T00:00:00Z") { return d }
        throw CLIError.usage("'\(option)' expects an RFC 3339 time or YYYY-MM-DD, got '\(text)'", command: "report")
    }
    /// The message for an experiment id the folder does not have: the nearest id (edit distance, or
    /// the id that contains what was typed) and every experiment there is.
    static func unknownExperiment(_ id: String, known: [String]) -> String {
        var message = "no experiment '\(id)' in the experiment folder"
        message += nearest(to: id, in: known).map { ". Did you mean '\($0)'?" } ?? "."
        message += known.isEmpty ? " It has no experiments." : " Experiments: \(known.sorted().joined(separator: ", "))."
        return message
    }

    /// The known id nearest to `id`: one that contains it (`trial-length` for `chorus-trial-length`),
    /// else the closest by edit distance when at most half of it differs; nil when nothing is near.
    static func nearest(to id: String, in known: [String]) -> String? {
        let lowered = id.lowercased()
        if lowered.count >= 3, let containing = known.filter({ $0.contains(lowered) }).min(by: { $0.count < $1.count }) { return containing }
        var best: (id: String, distance: Int)? = nil
        for candidate in known.sorted() {
            let d = Spelling.distance(lowered, candidate)
            if best == nil || d < best!.distance { best = (candidate, d) }
        }
        guard let best, best.distance <= max(2, max(lowered.count, best.id.count) / 2) else { return nil }
        return best.id
    }
}
