import Dispatch
import Synchronization

/// The single writer: callers' batches queue up, and whatever has queued while the previous
/// transaction ran is committed together in one transaction (group commit). Each caller hears
/// back only after the transaction holding its batch has committed.
///
/// `@unchecked Sendable`: the connection and its statements are touched only on `queue`, a
/// serial queue; the request list is behind a `Mutex`.
final class GroupCommitWriter: @unchecked Sendable {
    typealias Completion = @Sendable (Result<AppendResult, any Error>) -> Void

    struct Request {
        var events: [Event]
        var completion: Completion
    }

    private let connection: Connection
    private let queue = DispatchQueue(label: "abctl.eventstore.writer")
    private let pending = Mutex<[Request]>([])
    private let isClosed = Atomic<Bool>(false)
    /// A transaction takes at least one request, then more while they fit under this many events.
    let maxEventsPerTransaction: Int
    /// Transactions committed, for tests and metrics.
    private let transactionCount = Atomic<Int>(0)

    init(connection: Connection, maxEventsPerTransaction: Int) {
        self.connection = connection
        self.maxEventsPerTransaction = maxEventsPerTransaction
    }

    var transactionsCommitted: Int { transactionCount.load(ordering: .relaxed) }

    func submit(_ events: [Event], completion: @escaping Completion) {
        if isClosed.load(ordering: .acquiring) {
            completion(.failure(StoreError(kind: .closed, message: "closed", context: "append")))
            return
        }
        pending.withLock { $0.append(Request(events: events, completion: completion)) }
        queue.async { self.drain() }
    }

    /// Stops taking requests and waits for the queued ones to commit.
    func close() {
        isClosed.store(true, ordering: .releasing)
        queue.sync {}
    }

    /// Runs `body` on the writer's queue with its connection (for maintenance such as checkpoints).
    func withConnection<T: Sendable>(_ body: @Sendable (Connection) throws -> T) throws -> T {
        try queue.sync { try body(connection) }
    }

    private func drain() {
        let group: [Request] = pending.withLock { queued in
            guard !queued.isEmpty else { return [] }
            var count = 0
            var taken = 0
            while taken < queued.count && (taken == 0 || count + queued[taken].events.count <= maxEventsPerTransaction) {
                count += queued[taken].events.count
                taken += 1
            }
            let group = Array(queued[..<taken])
            queued.removeFirst(taken)
            return group
        }
        guard !group.isEmpty else { return }
        let results = commit(group)
        for (request, result) in zip(group, results) { request.completion(result) }
    }

    /// One transaction for the whole group; each request in its own savepoint so a failing
    /// request is undone alone. If facts or the commit fail, every request fails.
    private func commit(_ group: [Request]) -> [Result<AppendResult, any Error>] {
        var results: [Result<AppendResult, any Error>] = []
        results.reserveCapacity(group.count)
        do {
            try connection.execute("BEGIN IMMEDIATE")
            var touched = Set<String>()
            for request in group {
                do {
                    try connection.execute("SAVEPOINT request")
                    var requestTouched: [String] = []
                    let result = try insert(request.events, touched: &requestTouched)
                    try connection.execute("RELEASE request")
                    touched.formUnion(requestTouched)
                    results.append(.success(result))
                } catch {
                    try? connection.execute("ROLLBACK TO request")
                    try? connection.execute("RELEASE request")
                    results.append(.failure(error))
                }
            }
            for user in touched.sorted() { try refreshFacts(userID: user) }
            try connection.execute("COMMIT")
            transactionCount.add(1, ordering: .relaxed)
            return results
        } catch {
            try? connection.execute("ROLLBACK")
            return group.map { _ in .failure(error) }
        }
    }

    private func insert(_ events: [Event], touched: inout [String]) throws -> AppendResult {
        let statement = try connection.cached("""
            INSERT INTO events (event_id, type, user_id, ts, experiment, variant, revenue, currency, product_id,
                                copy_source, copy_text, copy_fallback_reason)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (event_id) DO NOTHING
            """)
        var result = AppendResult()
        for event in events {
            try statement.reset()
            try statement.bind(1, event.id)
            try statement.bind(2, Int64(event.type.rawValue))
            try statement.bind(3, event.userID)
            try statement.bind(4, event.timestamp.microseconds)
            try statement.bind(5, event.experiment)
            try statement.bind(6, event.variant)
            try statement.bind(7, event.revenue)
            try statement.bind(8, event.currency)
            try statement.bind(9, event.productID)
            try statement.bind(10, event.copySource?.rawValue)
            try statement.bind(11, event.copyText)
            try statement.bind(12, event.copyFallbackReason)
            try statement.run()
            if connection.changes == 1 {
                result.stored += 1
                touched.append(event.userID)
            } else {
                result.duplicates += 1
            }
        }
        return result
    }

    /// Recomputes one user's facts from all of the user's stored events.
    private func refreshFacts(userID: String) throws {
        let select = try connection.cached("""
            SELECT type, ts, experiment, variant, revenue, copy_source, copy_fallback_reason, event_id
            FROM events WHERE user_id = ?
            """)
        try select.bind(1, userID)
        defer { select.finish() }
        var sources: [FactsBuilder.Source] = []
        while try select.step() {
            guard let type = EventType(rawValue: Int(select.int64(0))) else { continue }
            var contribution = 0.0
            if type.carriesRevenue, let revenue = select.optionalDouble(4) {
                contribution = type == .refunded ? -abs(revenue) : revenue
            }
            sources.append(FactsBuilder.Source(
                type: type, ts: select.int64(1),
                experiment: type == .exposure ? select.optionalText(2) : nil,
                variant: type == .exposure ? select.optionalText(3) : nil,
                revenueContribution: contribution,
                copySource: type == .exposure ? select.optionalText(5).flatMap(CopySource.init(rawValue:)) : nil,
                copyFallbackReason: type == .exposure ? select.optionalText(6) : nil,
                eventID: select.text(7)))
        }
        let facts = FactsBuilder.facts(userID: userID, events: sources)
        guard !facts.isEmpty else { return }
        let upsert = try connection.cached("""
            INSERT OR REPLACE INTO facts (experiment, user_id, variant, first_exposure_ts, trial_start_ts, first_paid_ts,
                first_converted_ts, first_cancel_ts, refunded_ts, net_revenue, copy_source, copy_fallback_reason)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        for f in facts {
            try upsert.reset()
            try upsert.bind(1, f.experiment)
            try upsert.bind(2, f.userID)
            try upsert.bind(3, f.variant)
            try upsert.bind(4, f.firstExposure.microseconds)
            try upsert.bind(5, f.trialStart?.microseconds)
            try upsert.bind(6, f.firstPaid?.microseconds)
            try upsert.bind(7, f.firstConverted?.microseconds)
            try upsert.bind(8, f.firstCancel?.microseconds)
            try upsert.bind(9, f.refundedAt?.microseconds)
            try upsert.bind(10, f.netRevenue)
            try upsert.bind(11, f.copySource?.rawValue)
            try upsert.bind(12, f.copyFallbackReason)
            try upsert.run()
        }
    }
}
