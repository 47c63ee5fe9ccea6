import Events
import ExperimentDefinitions
import Foundation
import Reporting

/// The reports the console's pages show. With the default parameters, the ones stored by the lease
/// holder (`ConsoleRefresher`), read by every node, so every node shows the same figures; with
/// other parameters (or before anything is stored), computed for the page on the API's report
/// threads, within their bound, and never stored.
final class ConsoleReports: Sendable {
    enum Outcome: Sendable {
        case report(Report)
        case failed(String)
    }

    let store: any EventStore
    /// `ABCTL_NOW`; nil: the time of the request.
    let clock: Date?
    /// The API's report threads, shared with `GET /v1/experiments/{id}/report`.
    let onRequest: LowPriorityThreads
    let log: Log

    init(store: any EventStore, clock: Date?, onRequest: LowPriorityThreads, log: Log) {
        self.log = log
        self.store = store
        self.clock = clock
        self.onRequest = onRequest
    }

    func options(_ snapshot: ExperimentSnapshot) -> ReportOptions {
        var options = ReportOptions(clock: clock, products: snapshot.catalog.products)
        options.readNamespaces(of: snapshot.catalog)
        return options
    }

    static func compute(_ store: any EventStore, _ experiment: Experiment, _ options: ReportOptions, log: Log) -> Outcome {
        do {
            return .report(try ReportBuilder.report(source: store, experiment: experiment, options: options))
        } catch {
            log.write(level: .error, "console report failed", ["experiment": .string(experiment.id), "error": .string(String(describing: error))])
            return .failed("The report could not be read from the event store; retry in a moment.")
        }
    }

    /// One experiment's report with `options`, on the API's report threads; false when they are busy.
    func one(_ experiment: Experiment, options: ReportOptions, done: @escaping @Sendable (Outcome) -> Void) -> Bool {
        let store = self.store, log = self.log
        return onRequest.run({ Self.compute(store, experiment, options, log: log) }, done: done)
    }

    /// The stored report of `experiment`; nil when none is stored or it cannot be read (logged).
    func stored(_ experiment: String) -> StoredConsoleReport? {
        do {
            return try store.consoleReport(experiment: experiment)
        } catch {
            log.write(level: .error, "cannot read the stored console report", ["experiment": .string(experiment), "error": .string(String(describing: error))])
            return nil
        }
    }

    /// The line a page shows above stored figures: as of when, and when they were computed.
    static func asOfLine(_ report: StoredConsoleReport, refreshSeconds: Double) -> String {
        "Figures as of \(report.generatedAt.rfc3339), computed at \(report.computedAt.rfc3339) and stored for every server; "
            + "computed again after new events, at most every \(Metrics.format(refreshSeconds)) s."
    }
}
