import ExperimentDefinitions
import Foundation

/// The durable event queue and its delivery to `POST /v1/events`: events are on disk before
/// `enqueue` returns, sent in batches, and taken off the queue only once the server has stored
/// them (200). Failed sends are retried with exponential backoff.
///
/// One send at a time: the background loop and `flush()` both go through `sendOnce()`, which joins
/// the send in flight or starts one. That send clears its own mark as its last step on the actor,
/// so whoever waited for it resumes to find either a newer send or none, never a finished one.
actor EventOutbox {
    /// Delivers one NDJSON batch and gives back the status and body: `POST /v1/events` in the app;
    /// tests wrap it to hold a send open and so force an interleaving.
    typealias Poster = @Sendable (_ body: [UInt8]) async throws -> (status: Int, body: [UInt8])

    /// What the outbox has done since the client started.
    struct Counts: Sendable, Equatable {
        var queued = 0
        /// Events the server stored for the first time.
        var stored = 0
        /// Events the server already had (a resend after a lost answer or a crash).
        var duplicates = 0
        /// Events refused because the queue was full.
        var droppedQueueFull = 0
        /// Events the server rejected as invalid (422), taken off the queue so they cannot block it.
        var rejected = 0
        var failedSends = 0
        var refused = 0
        /// Timestamps moved back because the device's clock ran ahead of the server's.
        var timestampsCorrected = 0
    }

    private let log: EventLog
    private let post: Poster
    private let capacity: Int
    private let batchSize: Int
    private let initialBackoff: Duration
    private let maxBackoff: Duration
    private let sendsAutomatically: Bool
    private let logger: ClientLogger
    private let deviceNow: @Sendable () -> Date
    /// The scope `POST /v1/events` needs of this client's key.
    private let routeScope: String
    /// The device's clock against the server's; nil: timestamps are sent as logged.
    private let serverClock: ServerClock?
    /// The offset last reported as a correction, so a steady skew is logged once, not per batch.
    private var reportedOffset: TimeInterval?
    private(set) var counts = Counts()
    private(set) var lastError: (message: String, at: Date)?
    private(set) var lastAuthFailure: AuthFailure?
    private(set) var authFailures = 0
    /// The send in flight: a flush and the background loop share it, so no batch goes out twice at once.
    /// Set by the caller that starts it, cleared by the send itself as it ends.
    private var inFlight: Task<Bool, Never>?
    /// Callers waiting for the send in flight (tests wait for a join before letting a send end).
    private(set) var waitingOnSend = 0
    private var loop: Task<Void, Never>?
    private var closed = false

    /// Asks the server anything, for its `Date` header, before the first send of a run that has
    /// heard no answer yet (an app that logs before it asks for a paywall).
    private let probeClock: (@Sendable () async -> Void)?

    init(directory: URL, configuration: ClientConfiguration, serverClock: ServerClock? = nil,
         probeClock: (@Sendable () async -> Void)? = nil, post: @escaping Poster) throws {
        self.probeClock = probeClock
        log = try EventLog(directory: directory)
        logger = configuration.logger
        deviceNow = configuration.clock
        routeScope = configuration.isAppKey ? "app" : "ingest"
        self.serverClock = serverClock
        self.post = post
        capacity = max(1, configuration.queueCapacity)
        batchSize = max(1, configuration.batchSize)
        initialBackoff = configuration.initialBackoff
        maxBackoff = configuration.maxBackoff
        sendsAutomatically = configuration.sendsAutomatically
    }

    var depth: Int { log.pending.count }
    var recovery: EventLog.Recovery { log.recovery }

    /// Puts events on the queue (one fsync for all); returns how many were kept. Those past the
    /// capacity are dropped and counted.
    func enqueue(_ events: [ClientEvent]) throws -> Int {
        let room = max(0, capacity - log.pending.count)
        var kept = Array(events.prefix(room))
        // Corrected before it reaches the disk, with the offset of the moment it was logged.
        var corrected = 0
        for i in kept.indices {
            if let ts = serverClock?.corrected(kept[i].timestamp) {
                kept[i].timestamp = ts
                corrected += 1
            }
        }
        if corrected > 0 { recordCorrection(corrected) }
        counts.droppedQueueFull += events.count - kept.count
        if kept.count < events.count { note("the event queue is full (\(capacity)); \(events.count - kept.count) event(s) dropped") }
        do {
            try log.append(kept.map { Array($0.json.serialized().utf8) })
        } catch {
            note("writing the event queue failed: \(error)")
            throw error
        }
        counts.queued += kept.count
        if sendsAutomatically && !kept.isEmpty { startLoop() }
        return kept.count
    }

    /// Sends until the queue is empty; false at the first failed send (the events stay queued).
    func flush() async -> Bool {
        while !log.pending.isEmpty {
            if !(await sendOnce()) { return false }
        }
        return true
    }

    /// Starts sending what is queued (events left by an earlier run included).
    func resume() {
        if sendsAutomatically && !log.pending.isEmpty { startLoop() }
    }

    /// Stops the background loop; queued events stay on disk for the next start.
    func close() {
        closed = true
        loop?.cancel()
        loop = nil
    }

    private func startLoop() {
        guard loop == nil, !closed else { return }
        loop = Task { await self.runLoop() }
    }

    private func runLoop() async {
        var wait = initialBackoff
        while !Task.isCancelled && !log.pending.isEmpty {
            if await sendOnce() {
                wait = initialBackoff
            } else {
                // Full jitter keeps many devices coming back from an outage from arriving at once.
                let jittered = wait * Double.random(in: 0.5...1.0)
                try? await Task.sleep(for: jittered)
                wait = min(wait * 2, maxBackoff)
            }
        }
        loop = nil
    }

    /// One batch: joins the send in flight, or starts one.
    ///
    /// The send task, not its caller, clears `inFlight`: when a send ends, its waiters resume in an
    /// order nobody chooses, and one that found the finished task still marked in flight would
    /// "join" it again at once, never suspend, and hold the actor in a loop (a flush did that).
    private func sendOnce() async -> Bool {
        waitingOnSend += 1
        defer { waitingOnSend -= 1 }
        if let inFlight { return await inFlight.value }
        let task = Task {
            let ok = await self.sendBatch()
            self.inFlight = nil
            return ok
        }
        inFlight = task
        return await task.value
    }

    private func sendBatch(limit: Int? = nil, clockRetried: Bool = false) async -> Bool {
        let batch = Array(log.pending.prefix(min(batchSize, limit ?? batchSize)))
        guard !batch.isEmpty else { return true }
        if let serverClock, serverClock.offset == nil, let probeClock { await probeClock() }
        var body: [UInt8] = []
        var corrected = 0
        // Records are read back only when the device runs ahead: otherwise they go as they lie on disk.
        let mayCorrect = (serverClock?.offset ?? 0) < -60
        for (i, record) in batch.enumerated() {
            if i > 0 { body.append(0x0A) }
            if mayCorrect, let line = correctedLine(record.json) {
                body += line
                corrected += 1
            } else {
                body += record.json
            }
        }
        if corrected > 0 { recordCorrection(corrected) }
        let status: Int, answer: [UInt8]
        do {
            (status, answer) = try await post(body)
        } catch {
            counts.failedSends += 1
            note("sending events failed: \(error)")
            return false
        }
        switch status {
        case 200:
            let json = try? JSONValue.parse(answer)
            counts.stored += Int(json?["stored"]?.number ?? 0)
            counts.duplicates += Int(json?["duplicate"]?.number ?? 0)
            return acknowledge(batch.count)
        case 400, 422:
            if !clockRetried && batch.contains(where: { correctedLine($0.json) != nil }) {
                // The answer's `Date` header showed the device's clock ahead of the server's (the first
                // answer this run, or the clock moved): send the batch again, its timestamps corrected.
                return await sendBatch(limit: limit, clockRetried: true)
            }
            // The batch was refused whole and nothing stored; drop the lines the server named and
            // send the rest again. Without line numbers there is nothing safe to drop: keep all.
            // `rejections` sits beside `error` in the answer: [{"line", "field", "message"}].
            let lines = Set(((try? JSONValue.parse(answer))?["rejections"]?.array ?? []).compactMap { $0["line"]?.number.map(Int.init) })
            counts.failedSends += 1
            note("the server rejected events: \(ServerConnection.statusError(status, answer))")
            guard let first = lines.min(), first >= 1 else { return false }
            var leading = 0
            while leading < batch.count && lines.contains(leading + 1) { leading += 1 }
            if leading > 0 {
                counts.rejected += leading
                return acknowledge(leading)
            }
            // The valid records before the first rejected one go alone; the rejected one then leads the next batch.
            return await sendBatch(limit: first - 1)
        case 403:
            // The key may not post these events (an app key and a purchase, a key without ingest):
            // retrying cannot help, so the batch leaves the queue and the refusal is reported, loudly.
            counts.refused += batch.count
            let failure = recordAuthFailure(status, answer)
            note("the server refused events for this key's scope (\(batch.count) dropped): \(failure)")
            return acknowledge(batch.count)
        case 401:
            // No key or one the server does not know: kept and retried with backoff, since the
            // server's keys can be mended without a new app build; said aloud each time.
            counts.failedSends += 1
            let failure = recordAuthFailure(status, answer)
            note("sending events failed: \(failure)")
            return false
        default:
            counts.failedSends += 1
            note("sending events failed: \(ServerConnection.statusError(status, answer))")
            return false
        }
    }

    private func acknowledge(_ count: Int) -> Bool {
        do {
            try log.acknowledge(count)
            return true
        } catch {
            note("recording delivered events failed: \(error)")
            return false
        }
    }

    private func note(_ message: String) {
        lastError = (message, deviceNow())
    }

    private func recordAuthFailure(_ status: Int, _ answer: [UInt8]) -> AuthFailure {
        let failure = AuthFailure.from(status: status, body: answer, path: "v1/events", routeScope: routeScope, at: deviceNow())
            ?? AuthFailure(status: status, path: "v1/events", missingScope: routeScope, message: "", at: deviceNow())
        authFailures += 1
        lastAuthFailure = failure
        logger(.error, failure.description)
        return failure
    }

    /// An NDJSON record with its `ts` corrected by the server's clock; nil when it needs none.
    private func correctedLine(_ line: [UInt8]) -> [UInt8]? {
        guard let serverClock, serverClock.offset != nil, case .object(var members)? = try? JSONValue.parse(line),
              let i = members.firstIndex(where: { $0.0 == "ts" }), let text = members[i].1.string, let ts = RFC3339.parse(text),
              let corrected = serverClock.corrected(ts) else { return nil }
        members[i].1 = .string(RFC3339.format(corrected))
        return Array(JSONValue.object(members).serialized().utf8)
    }

    /// Counts corrected timestamps, and says so when the skew is new (or has changed by a minute).
    private func recordCorrection(_ count: Int) {
        counts.timestampsCorrected += count
        guard let offset = serverClock?.offset else { return }
        if let reported = reportedOffset, abs(reported - offset) < 60 { return }
        reportedOffset = offset
        let message = "the device clock is \(Int(-offset)) s ahead of the server's (its Date header); event timestamps more than "
            + "\(Int(ServerClock.tolerance / 60)) minutes ahead are moved back by \(Int(-offset)) s"
        note(message)
        logger(.warning, message)
    }
}
