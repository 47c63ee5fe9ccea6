import Events
import ExperimentDefinitions
import Foundation
import HTTPTransport
import Reporting
import Synchronization

/// Notifications (`--notify-url`), on two threads of their own, both idle unless this node holds
/// the safeguard lease:
///
/// - **conditions** (low priority, every `conditionSeconds`): records what the experiments' state
///   calls for (`past_end`, `no_data`, and, from the report's analysis, `decision_ready` and
///   `sample_ratio_mismatch`). Safeguard stops and resets are recorded by `recordStops`, which the
///   safeguard schedule calls each round.
/// - **sender**: claims one due notification at a time for `claimSeconds`, POSTs it (at most
///   `tryTimeoutSeconds`, no redirect), and records the outcome.
///
/// Everything is recorded in the store before it is sent, so a restart, a killed process or
/// another node taking the lease over loses none, and one acknowledged is never sent again.
public final class Notifier: Sendable {
    let options: NotificationOptions
    let store: any EventStore
    let snapshots: SnapshotHolder
    /// The time conditions are read at (`ABCTL_NOW` fixes it); the outbox's schedule reads `wallClock`.
    let conditionClock: @Sendable () -> Date
    let wallClock: @Sendable () -> Date
    let log: Log
    /// Set by the safeguard schedule while this node holds the lease: nothing is evaluated or sent otherwise.
    public let leaseHeld = Atomic<Bool>(false)
    /// This process, as the outbox's claimant.
    let claimant = "node-" + UUID().uuidString.lowercased()
    private let sender = NotificationSender()
    private let threads = ServiceThreads()
    /// Ids (and targets) this process has recorded or found recorded: not written again.
    private let known = Mutex<Set<String>>([])

    // What /metrics shows.
    let delivered = Atomic<Int>(0)
    let triesFailed = Atomic<Int>(0)
    let givenUp = Atomic<Int>(0)
    let recorded = Atomic<Int>(0)
    /// Rows of the outbox as last counted (every round of conditions): pending, failed.
    let pendingInStore = Atomic<Int>(0)
    let failedInStore = Atomic<Int>(0)

    public init(options: NotificationOptions, store: any EventStore, snapshots: SnapshotHolder, log: Log,
                conditionClock: @escaping @Sendable () -> Date, wallClock: @escaping @Sendable () -> Date = { Date() }) {
        self.log = log
        self.options = options
        self.store = store
        self.snapshots = snapshots
        self.conditionClock = conditionClock
        self.wallClock = wallClock
    }

    var targets: [String] { options.targets.map(\.given) }

    public func start() {
        guard !options.targets.isEmpty else { return }
        threads.start([("abctl-notify-send", { [self] in sendLoop() }),
                       ("abctl-notify-conditions", { [self] in conditionLoop() })])
    }

    public func stop(timeout: Double = 15) {
        threads.stop(timeout: timeout)
    }

    private var isStopping: Bool { threads.isStopping }

    private func pause(_ seconds: Double) {
        threads.pause(seconds)
    }

    // MARK: Recording

    /// Records each of `notifications` for every target (quiet ones once, for no target), as
    /// recorded now by the wall clock (the retry window counts from it, whatever `ABCTL_NOW` says).
    func record(_ notifications: [OutboxNotification]) throws {
        let recordedAt = Timestamp(wallClock())
        for var n in notifications {
            if known.withLock({ $0.contains(n.id) }) { continue }
            n.recordedAt = recordedAt
            n.nextTryAt = recordedAt
            let written = try store.recordNotification(n, targets: n.state == .quiet ? [""] : targets)
            if written > 0 && n.state != .quiet {
                recorded.add(written, ordering: .relaxed)
                pendingInStore.add(written, ordering: .relaxed)
                log.write(level: .info, "notification recorded", ["id": .string(n.id), "type": .string(n.type), "experiment": .string(n.experiment)])
            }
            _ = known.withLock { $0.insert(n.id) }
        }
    }

    /// Records the stops and resets not yet notified (the safeguard schedule calls it each round).
    public func recordStops() throws {
        guard !options.targets.isEmpty else { return }
        try record(NotificationConditions.stops(try store.safeguardStops(experiment: nil), now: Timestamp(wallClock())))
    }

    /// One round of conditions over the running experiments.
    public func recordConditions() throws {
        let now = conditionClock()
        let catalog = snapshots.snapshot.catalog
        let summaries = Dictionary(try store.experiments().map { ($0.experiment, $0) }, uniquingKeysWith: { a, _ in a })
        var found: [OutboxNotification] = []
        for e in catalog.experiments where e.status == .running {
            if let n = NotificationConditions.pastEnd(e, now: now) { found.append(n) }
            if let n = NotificationConditions.noData(e, lastExposure: summaries[e.id]?.lastExposure, now: now, silenceSeconds: options.noDataSeconds) {
                found.append(n)
            }
            guard summaries[e.id] != nil, !isStopping else { continue }
            // The report's own analysis: its verdict and its sample ratio check.
            do {
                var reportOptions = ReportOptions(clock: now, products: catalog.products)
                reportOptions.readNamespaces(of: catalog)
                let report = try ReportBuilder.report(source: store, experiment: e, options: reportOptions)
                if let n = NotificationConditions.decision(experiment: e.id, verdict: report.decision.verdict.rawValue, arm: report.decision.winner,
                                                           reasons: report.decision.reasons, now: now) {
                    found.append(n)
                }
                if let n = NotificationConditions.sampleRatio(experiment: e.id, flagged: report.srm.flagged, pValue: report.srm.pValue,
                                                              earlier: try store.notifications(experiment: e.id), now: now) {
                    found.append(n)
                }
            } catch {
                log.write(level: .warning, "notification conditions: the report failed", ["experiment": .string(e.id), "error": .string(String(describing: error))])
            }
        }
        try record(found)
        try refreshCounts()
    }

    /// Counts the outbox's pending and failed rows for /metrics.
    func refreshCounts() throws {
        let rows = try store.notifications(experiment: nil)
        pendingInStore.store(rows.filter { $0.state == .pending }.count, ordering: .relaxed)
        failedInStore.store(rows.filter { $0.state == .failed }.count, ordering: .relaxed)
    }

    private func conditionLoop() {
        Self.lowerThreadPriority()
        var due = 0.0, wasHeld = false
        while !isStopping {
            let held = leaseHeld.load(ordering: .relaxed)
            if held && (!wasHeld || Monotonic.seconds() >= due) {
                due = Monotonic.seconds() + options.conditionSeconds
                do { try recordConditions() } catch {
                    log.write(level: .warning, "notification conditions failed", ["error": .string(String(describing: error))])
                }
            }
            wasHeld = held
            pause(1)
        }
    }

    /// Makes the calling thread one of low priority (nice 10): a report computed for the
    /// conditions yields the cores to the threads that answer requests.
    static func lowerThreadPriority() {
        #if os(Linux)
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)  // 0: the calling thread, on Linux
        #endif
    }

    // MARK: Sending

    private func sendLoop() {
        while !isStopping {
            guard leaseHeld.load(ordering: .relaxed) else { pause(1); continue }
            do {
                if try sendOne() { try refreshCounts() } else { pause(0.5) }
            } catch {
                log.write(level: .warning, "notification outbox failed", ["error": .string(String(describing: error))])
                pause(1)
            }
        }
    }

    /// Claims, tries and records one due notification; false when none is due.
    public func sendOne() throws -> Bool {
        let now = Timestamp(wallClock())
        let until = Timestamp(microseconds: now.microseconds + Int64(options.claimSeconds * 1_000_000))
        guard let n = try store.claimNotification(claimant: claimant, now: now, until: until) else { return false }
        let fields: [String: JSONValue] = ["id": .string(n.id), "type": .string(n.type), "experiment": .string(n.experiment),
                                           "target": .string(NotificationRedaction.target(n.target)), "attempt": .number(Double(n.attempts + 1))]
        guard let target = options.targets.first(where: { $0.given == n.target }) else {
            try store.finishNotificationTry(id: n.id, target: n.target, claimant: claimant,
                                            outcome: .failed(at: now, error: "no longer a --notify-url of this node"))
            givenUp.add(1, ordering: .relaxed)
            return true
        }
        let body = target.format == .slack ? NotificationBody.slack(n, publicURL: options.publicURL) : NotificationBody.json(n, publicURL: options.publicURL)
        var headers = [("Idempotency-Key", n.id)]
        if let secret = options.secret {
            headers.append((NotificationSignature.header, NotificationSignature.value(secret: secret, timestamp: Int(wallClock().timeIntervalSince1970), body: body)))
        }
        let (status, error) = sender.post(to: target.url, body: body, headers: headers, timeout: options.tryTimeoutSeconds)
        let outcome = options.backoff.outcome(status: status, error: error, attempts: n.attempts + 1, recordedAt: n.recordedAt, now: Timestamp(wallClock()))
        try store.finishNotificationTry(id: n.id, target: n.target, claimant: claimant, outcome: outcome)
        switch outcome {
        case .delivered:
            delivered.add(1, ordering: .relaxed)
            log.write(level: .info, "notification delivered", fields.merging(["status": .number(Double(status))]) { a, _ in a })
        case .retry(let next, _):
            triesFailed.add(1, ordering: .relaxed)
            log.write(level: .warning, "notification failed; retrying", fields.merging([
                "status": .number(Double(status)), "error": .string(error), "retry_at": .string(next.rfc3339),
            ]) { a, _ in a })
        case .failed:
            triesFailed.add(1, ordering: .relaxed)
            givenUp.add(1, ordering: .relaxed)
            log.write(level: .error, "notification failed; given up", fields.merging(["status": .number(Double(status)), "error": .string(error)]) { a, _ in a })
        }
        return true
    }

    // MARK: /metrics

    func metricsText() -> String {
        var out = ""
        func line(_ name: String, _ type: String, _ help: String, _ value: Int) {
            out += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n\(name) \(value)\n"
        }
        line("abctl_notifications_delivered_total", "counter", "Notifications a --notify-url acknowledged (2xx), sent by this node.", delivered.load(ordering: .relaxed))
        line("abctl_notification_tries_failed_total", "counter", "Notification tries that got no 2xx, by this node (each retried unless given up).", triesFailed.load(ordering: .relaxed))
        line("abctl_notifications_given_up_total", "counter", "Notifications this node gave up on (a 4xx other than 408 and 429, or 24 hours of retries).", givenUp.load(ordering: .relaxed))
        line("abctl_notifications_recorded_total", "counter", "Notifications this node recorded in the outbox (one per notification and --notify-url).", recorded.load(ordering: .relaxed))
        line("abctl_notifications_pending", "gauge", "Notifications in the outbox not yet acknowledged, as last counted by the lease holder.", pendingInStore.load(ordering: .relaxed))
        line("abctl_notifications_failed", "gauge", "Notifications in the outbox given up as failed, as last counted by the lease holder.", failedInStore.load(ordering: .relaxed))
        return out
    }
}
