import CopyGeneration
import Events
import ExperimentDefinitions
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPTransport
import Allocation
import Safeguards
import Synchronization

/// The server's side of safeguards, on two threads of its own:
///
/// - **stops** (every node): reads the stops in force from the store every `pollSeconds` and
///   swaps them into the snapshot, so the assigner and the GrowthBook payload honour a stop or a
///   reset made by any node (or `abctl safeguards`) within that time.
/// - **schedule** (one node at a time): takes the store's safeguard lease (a PostgreSQL session
///   advisory lock; always granted on SQLite) and keeps it while the node lives; the holder
///   evaluates each safeguarded experiment every `check_minutes` and delivers notifications.
///   The other nodes try for the lease every `leaseRetrySeconds`; when the holder dies its
///   session ends, the lock goes, and one of them takes over the schedule.
///
/// A stop is one INSERT, so a crash mid-evaluation leaves it whole or absent. Each round records
/// the stops and resets not yet notified in the store's outbox; the `Notifier` sends them (and the
/// other notifications) while this node holds the lease.
public final class SafeguardService: Sendable {
    public struct Options: Sendable {
        /// Where notifications go (`--notify-url`), sent by the lease holder.
        public var notifications: NotificationOptions
        /// The time evaluations read (`ABCTL_NOW` fixes it); nil: the clock.
        public var clock: Date?
        public var pollSeconds: Double
        public var leaseRetrySeconds: Double

        public init(notifications: NotificationOptions = .init(), clock: Date? = nil, pollSeconds: Double = 2, leaseRetrySeconds: Double = 2) {
            self.notifications = notifications
            self.clock = clock
            self.pollSeconds = pollSeconds
            self.leaseRetrySeconds = leaseRetrySeconds
        }
    }

    let options: Options
    let store: any EventStore
    let snapshots: SnapshotHolder
    let log: Log
    /// Notifications, sent while this node holds the lease.
    public let notifier: Notifier
    private let threads = ServiceThreads()

    // What /metrics shows.
    let leaseHeld = Atomic<Int>(0)
    let evaluations = Atomic<Int>(0)
    let evaluationFailures = Atomic<Int>(0)
    let stopsWritten = Atomic<Int>(0)
    let pollFailures = Atomic<Int>(0)
    /// The last evaluation's duration, in microseconds, and the CPU time its thread spent.
    let lastEvaluationMicros = Atomic<Int>(0)
    let lastEvaluationCPUMicros = Atomic<Int>(0)
    /// When the stops were last read successfully (seconds since 1970).
    let lastPollSeconds = Atomic<Int>(0)

    public init(options: Options, store: any EventStore, snapshots: SnapshotHolder, log: Log) {
        self.log = log
        self.options = options
        self.store = store
        self.snapshots = snapshots
        let clock = options.clock
        self.notifier = Notifier(options: options.notifications, store: store, snapshots: snapshots, log: log, conditionClock: { clock ?? Date() })
    }

    /// Reads the stops once (so the first answers already honour them), then starts both threads.
    public func start() {
        refreshStops()
        refreshPeriods()
        notifier.start()
        threads.start([("abctl-safeguard-stops", { [self] in pollLoop() }),
                       ("abctl-safeguard-schedule", { [self] in scheduleLoop() })])
    }

    /// Ends both threads (the lease is released) and waits for them, at most `timeout` seconds.
    public func stop(timeout: Double = 15) {
        threads.stop(timeout: timeout)
        notifier.stop(timeout: timeout)
    }

    private var isStopping: Bool { threads.isStopping }

    /// Sleeps up to `seconds`, or until `stop`.
    private func pause(_ seconds: Double) {
        threads.pause(seconds)
    }

    // MARK: Stops, on every node

    private func pollLoop() {
        while !isStopping {
            pause(options.pollSeconds)
            if isStopping { break }
            refreshStops()
            refreshPeriods()
        }
    }

    /// Swaps the stops in force into the snapshot when they differ from its own.
    func refreshStops() {
        let inForce: [SafeguardStop]
        do {
            inForce = try store.safeguardStopsInForce()
        } catch {
            pollFailures.add(1, ordering: .relaxed)
            log.write(level: .warning, "cannot read safeguard stops; keeping the ones in force", ["error": .string(String(describing: error))])
            return
        }
        lastPollSeconds.store(Int(Date().timeIntervalSince1970), ordering: .relaxed)
        let before = Mutex<[SafeguardStop]>([])
        snapshots.update { current in
            before.withLock { $0 = current.stops }
            return Self.sameStops(current.stops, inForce) ? nil : current.withStops(inForce)
        }
        let old = before.withLock { $0 }
        guard !Self.sameStops(old, inForce) else { return }
        let oldIDs = Set(old.map(\.id)), newIDs = Set(inForce.map(\.id))
        for s in inForce where !oldIDs.contains(s.id) {
            log.write(level: .info, "safeguard stop honoured", ["id": .string(s.id), "experiment": .string(s.experiment),
                                                                      "arm": .string(s.arm), "metric": .string(s.metric)])
        }
        for s in old where !newIDs.contains(s.id) {
            log.write(level: .info, "safeguard stop lifted", ["id": .string(s.id), "experiment": .string(s.experiment), "arm": .string(s.arm)])
        }
    }

    static func sameStops(_ a: [SafeguardStop], _ b: [SafeguardStop]) -> Bool {
        a.map(\.id) == b.map(\.id)
    }

    // MARK: The schedule, on the lease holder

    private func scheduleLoop() {
        while !isStopping {
            do {
                let held = try store.withSafeguardLease { () -> Bool in
                    leaseHeld.store(1, ordering: .relaxed)
                    notifier.leaseHeld.store(true, ordering: .relaxed)
                    defer {
                        notifier.leaseHeld.store(false, ordering: .relaxed)
                        leaseHeld.store(0, ordering: .relaxed)
                    }
                    log.write(level: .info, "safeguard lease taken: this node evaluates safeguards", [:])
                    holdLease()
                    return true
                }
                if held == nil { pause(options.leaseRetrySeconds) }
            } catch {
                log.write(level: .warning, "safeguard lease failed", ["error": .string(String(describing: error))])
                pause(options.leaseRetrySeconds)
            }
        }
    }

    /// Evaluates what is due and delivers what is pending until `stop`, or until the store fails
    /// (the lease may have gone with the connection: give it up and take it again).
    private func holdLease() {
        var due: [String: Double] = [:]
        while !isStopping {
            do {
                let now = Monotonic.seconds()
                var wrote = false
                for e in snapshots.snapshot.catalog.experiments where e.status == .running {
                    guard let config = e.safeguards else { continue }
                    if let next = due[e.id], next > now { continue }
                    due[e.id] = now + config.checkMinutes * 60
                    wrote = try evaluate(e) || wrote
                }
                if wrote { refreshStops() }
                if try updateAllocations() { refreshPeriods() }
                try notifier.recordStops()
                let nextDue = due.values.min().map { $0 - Monotonic.seconds() } ?? 1
                pause(min(1, max(0.05, nextDue)))
            } catch {
                evaluationFailures.add(1, ordering: .relaxed)
                log.write(level: .warning, "safeguard evaluation failed; giving up the lease to take it again",
                                 ["error": .string(String(describing: error))])
                pause(options.leaseRetrySeconds)
                return
            }
        }
    }

    /// One evaluation of `e`; true when it wrote a stop.
    private func evaluate(_ e: Experiment) throws -> Bool {
        let now = options.clock ?? Date()
        let started = Monotonic.seconds(), cpu = Self.threadCPUMicros()
        let outcome = try SafeguardEvaluator.run(experiments: [e], store: store, now: now)
        lastEvaluationMicros.store(Int((Monotonic.seconds() - started) * 1_000_000), ordering: .relaxed)
        lastEvaluationCPUMicros.store(Self.threadCPUMicros() - cpu, ordering: .relaxed)
        evaluations.add(1, ordering: .relaxed)
        for s in outcome.newStops {
            stopsWritten.add(1, ordering: .relaxed)
            log.write(level: .warning, "safeguard stop", [
                "id": .string(s.id), "experiment": .string(s.experiment), "arm": .string(s.arm), "metric": .string(s.metric),
                "action": .string(s.action.rawValue), "at": .string(s.stoppedAt.rfc3339), "figures": s.figures.json,
                "text": .string(SafeguardText.stop(s)),
            ])
        }
        return !outcome.newStops.isEmpty
    }

    /// CPU time of the calling thread (an evaluation runs on one thread): on a busy machine its
    /// wall time includes waiting for a core, this does not.
    static func threadCPUMicros() -> Int {
        var t = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
        return t.tv_sec * 1_000_000 + t.tv_nsec / 1000
    }

    // MARK: /metrics

    func metricsText() -> String {
        var out = ""
        func counter(_ name: String, _ help: String, _ value: Int) {
            out += "# HELP \(name) \(help)\n# TYPE \(name) counter\n\(name) \(value)\n"
        }
        func gauge(_ name: String, _ help: String, _ value: Double) {
            out += "# HELP \(name) \(help)\n# TYPE \(name) gauge\n\(name) \(Metrics.format(value))\n"
        }
        let inForce = snapshots.snapshot.stops
        gauge("abctl_safeguard_stops_in_force", "Safeguard stops in force, as this node last read them from the store.", Double(inForce.count))
        out += "# HELP abctl_safeguard_arm_stopped Whether a safeguard stop is in force on the arm (1), by experiment and arm.\n# TYPE abctl_safeguard_arm_stopped gauge\n"
        for s in inForce {
            out += "abctl_safeguard_arm_stopped{experiment=\"\(Metrics.escape(s.experiment))\",arm=\"\(Metrics.escape(s.arm))\",metric=\"\(Metrics.escape(s.metric))\"} 1\n"
        }
        gauge("abctl_safeguard_lease_held", "1 while this node holds the safeguard lease and runs the evaluation schedule.", Double(leaseHeld.load(ordering: .relaxed)))
        counter("abctl_safeguard_evaluations_total", "Safeguard evaluations of one experiment run by this node.", evaluations.load(ordering: .relaxed))
        counter("abctl_safeguard_evaluation_failures_total", "Safeguard evaluations that failed (the store did not answer).", evaluationFailures.load(ordering: .relaxed))
        gauge("abctl_safeguard_last_evaluation_seconds", "How long this node's last safeguard evaluation took.", Double(lastEvaluationMicros.load(ordering: .relaxed)) / 1e6)
        gauge("abctl_safeguard_last_evaluation_cpu_seconds", "CPU time of this node's last safeguard evaluation (one thread).", Double(lastEvaluationCPUMicros.load(ordering: .relaxed)) / 1e6)
        counter("abctl_safeguard_stops_total", "Safeguard stops written by this node.", stopsWritten.load(ordering: .relaxed))
        counter("abctl_safeguard_stop_read_failures_total", "Reads of the stops in force that failed.", pollFailures.load(ordering: .relaxed))
        gauge("abctl_safeguard_stops_read_timestamp_seconds", "When this node last read the stops in force.", Double(lastPollSeconds.load(ordering: .relaxed)))
        return out + notifier.metricsText()
    }
}
