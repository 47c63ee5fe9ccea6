import Events
import ExperimentDefinitions
import Foundation
import Reporting
import Synchronization

/// The reports the console's pages show, computed off the request threads: the page of every
/// experiment on a background slot of its own (one report at a time, beside the API's bound of
/// 2 on request), reusing each report for `refreshSeconds` while the folder is the same one; an
/// experiment's page with its parameters on the API's report threads, within their bound.
final class ConsoleReports: Sendable {
    enum Outcome: Sendable {
        case report(Report)
        case failed(String)
    }

    struct Entry: Sendable {
        var computedAt: Date
        /// The folder's load the report was computed for.
        var loadedAt: Date
        var outcome: Outcome
    }

    let store: any EventStore
    /// `ABCTL_NOW`; nil: the time of the request.
    let clock: Date?
    let refreshSeconds: Double
    /// The overview's slot.
    let background = ReportWorkers(width: 1)
    /// The API's report threads, shared with `GET /v1/experiments/{id}/report`.
    let onRequest: ReportWorkers
    private let cache = Mutex<[String: Entry]>([:])

    let log: Log

    init(store: any EventStore, clock: Date?, refreshSeconds: Double, onRequest: ReportWorkers, log: Log) {
        self.log = log
        self.store = store
        self.clock = clock
        self.refreshSeconds = refreshSeconds
        self.onRequest = onRequest
    }

    func options(_ snapshot: ExperimentSnapshot) -> ReportOptions {
        var options = ReportOptions(clock: clock, products: snapshot.catalog.products)
        options.readNamespaces(of: snapshot.catalog)
        return options
    }

    /// Every experiment's report with the default parameters, in the folder's order; false,
    /// with nothing run, when the background slot is busy.
    func all(_ snapshot: ExperimentSnapshot, done: @escaping @Sendable ([(Experiment, Entry)]) -> Void) -> Bool {
        background.run({ [self] () -> [(Experiment, Entry)] in
            snapshot.catalog.experiments.map { experiment in (experiment, entry(experiment, snapshot)) }
        }, done: done)
    }

    /// Every experiment's kept report, however old, when each has one; nil otherwise.
    func kept(_ snapshot: ExperimentSnapshot) -> [(Experiment, Entry)]? {
        let held = cache.withLock { $0 }
        var entries: [(Experiment, Entry)] = []
        for experiment in snapshot.catalog.experiments {
            guard let entry = held[experiment.id] else { return nil }
            entries.append((experiment, entry))
        }
        return entries
    }

    /// The stored entry when it is fresh, else a new one.
    private func entry(_ experiment: Experiment, _ snapshot: ExperimentSnapshot) -> Entry {
        let now = Date()
        if let kept = cache.withLock({ $0[experiment.id] }), kept.loadedAt == snapshot.loadedAt,
           now.timeIntervalSince(kept.computedAt) < refreshSeconds {
            return kept
        }
        let fresh = Entry(computedAt: now, loadedAt: snapshot.loadedAt, outcome: Self.compute(store, experiment, options(snapshot), log: log))
        cache.withLock { $0[experiment.id] = fresh }
        return fresh
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
}
