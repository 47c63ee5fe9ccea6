import Events
import ExperimentDefinitions
import Foundation
import HTTPTransport
import Reporting
import Synchronization

/// The console's background slot: on the node holding the safeguard lease, computes the report of
/// each experiment whose data changed and stores it, so every node's pages read the same figures.
///
/// One report at a time, on a thread of its own at the report threads' low priority, beside the
/// API's bound of reports on request. An experiment's report is computed again when its change
/// counter moved or what else it was computed from changed (the folder was loaded again, a stop
/// came or went), and at most every `interval` seconds, counted from its stored report's
/// computation, so a leader that changes keeps the pace.
final class ConsoleRefresher: Sendable {
    let store: any EventStore
    let snapshots: SnapshotHolder
    let reports: ConsoleReports
    /// `--console-refresh-s`.
    let interval: Double
    /// Whether this node holds the lease now.
    let isLeader: @Sendable () -> Bool
    let log: Log
    private let threads = ServiceThreads()

    // What /metrics shows.
    let computed = Atomic<Int>(0)
    let failures = Atomic<Int>(0)
    let lastMicros = Atomic<Int>(0)
    /// The refresh thread's nice value as the kernel holds it, once lowered.
    let niceness = Atomic<Int32>(0)

    init(store: any EventStore, snapshots: SnapshotHolder, reports: ConsoleReports, interval: Double, log: Log,
         isLeader: @escaping @Sendable () -> Bool) {
        self.store = store
        self.snapshots = snapshots
        self.reports = reports
        self.interval = interval
        self.isLeader = isLeader
        self.log = log
    }

    func start() {
        threads.start([("abctl-console-refresh", { [self] in
            LowPriorityThreads.lowerThisThreadsPriority()
            niceness.store(LowPriorityThreads.currentNiceness(), ordering: .relaxed)
            while !threads.isStopping {
                if isLeader() { _ = refresh(now: Date()) }
                // Counters are read at most once a second: a small read on the leader only.
                threads.pause(min(1, max(0.05, interval)))
            }
        })])
    }

    func stop(timeout: Double = 15) { threads.stop(timeout: timeout) }

    /// What a stored report was computed from besides the events: the folder's load and the
    /// experiment's stops in force.
    static func inputs(_ experiment: Experiment, _ snapshot: ExperimentSnapshot) -> String {
        let stops = snapshot.stops.filter { $0.experiment == experiment.id }.map(\.id).sorted()
        return "loaded \(Timestamp(snapshot.loadedAt).rfc3339); stops \(stops.joined(separator: ","))"
    }

    /// One pass at `now`: computes and stores, one after another, the reports that are due; returns
    /// the ids of the experiments computed. Stops early when the server stops.
    @discardableResult
    func refresh(now: Date) -> [String] {
        let snapshot = snapshots.snapshot
        let counters: [String: Int64], kept: [String: StoredConsoleReport]
        do {
            counters = try store.experimentChangeCounters()
            kept = try store.consoleReports(bodies: false)
        } catch {
            failures.add(1, ordering: .relaxed)
            log.write(level: .warning, "cannot read the console's stored reports", ["error": .string(String(describing: error))])
            return []
        }
        var done: [String] = []
        for experiment in snapshot.catalog.experiments where !threads.isStopping {
            let counter = counters[experiment.id] ?? 0, inputs = Self.inputs(experiment, snapshot)
            if let stored = kept[experiment.id] {
                guard stored.counter != counter || stored.inputs != inputs else { continue }
                guard now.timeIntervalSince(stored.computedAt.date) >= interval else { continue }
            }
            let started = Monotonic.seconds()
            switch ConsoleReports.compute(store, experiment, reports.options(snapshot), log: log) {
            case .failed:
                failures.add(1, ordering: .relaxed)
            case .report(let report):
                let keep = StoredConsoleReport(experiment: experiment.id, counter: counter, inputs: inputs,
                                               generatedAt: Timestamp(report.generatedAt), computedAt: Timestamp(now),
                                               summary: ConsoleDigest(report).json, body: HTMLReportRenderer.body(report))
                do {
                    try store.keepConsoleReport(keep)
                    computed.add(1, ordering: .relaxed)
                    lastMicros.store(Int((Monotonic.seconds() - started) * 1_000_000), ordering: .relaxed)
                    done.append(experiment.id)
                } catch {
                    failures.add(1, ordering: .relaxed)
                    log.write(level: .warning, "cannot store the console report", ["experiment": .string(experiment.id),
                                                                                 "error": .string(String(describing: error))])
                }
            }
        }
        return done
    }

    func metricsText() -> String {
        """
        # HELP abctl_console_reports_computed_total Console reports this node computed in the background and stored (as the lease holder).
        # TYPE abctl_console_reports_computed_total counter
        abctl_console_reports_computed_total \(computed.load(ordering: .relaxed))
        # HELP abctl_console_report_failures_total Background console reports that could not be computed or stored.
        # TYPE abctl_console_report_failures_total counter
        abctl_console_report_failures_total \(failures.load(ordering: .relaxed))
        # HELP abctl_console_last_report_seconds How long this node's last background console report took, stored.
        # TYPE abctl_console_last_report_seconds gauge
        abctl_console_last_report_seconds \(Metrics.format(Double(lastMicros.load(ordering: .relaxed)) / 1e6))

        """
    }
}
