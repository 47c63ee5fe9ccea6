import Events
import ExperimentDefinitions
import Dispatch
import Synchronization

/// The single writer: callers' batches queue up, and whatever has queued while the previous
/// transaction ran is committed together in one transaction (group commit). Each caller hears
/// back only after the transaction holding its batch has committed.
///
/// Bulk requests (`abctl ingest`) may leave the transaction open across drains until
/// `commitEvery` events have gathered, so a large load commits a few times instead of once per
/// batch (each commit rewrites every index page it touched). Their completions, too, wait for
/// the commit; `consumed` tells the producer early that the writer has taken the batch.
///
/// `@unchecked Sendable`: the connection, its statements and the transaction state are touched
/// only on `queue`, a serial queue; the request list is behind a `Mutex`.
final class GroupCommitWriter: @unchecked Sendable {
    typealias Completion = @Sendable (Result<AppendResult, any Error>) -> Void

    struct Request {
        var events: [Event]
        /// nil: commit at the end of this drain. A number: the transaction may stay open until
        /// this many events are uncommitted.
        var commitEvery: Int?
        var consumed: (@Sendable () -> Void)?
        var completion: Completion
    }

    private let connection: Connection
    private let queue = DispatchQueue(label: "abctl.eventstore.writer")
    private static let onWriterQueue = DispatchSpecificKey<Bool>()
    private let pending = Mutex<[Request]>([])
    private let isClosed = Atomic<Bool>(false)
    /// A drain takes at least one request, then more while they fit under this many events.
    let maxEventsPerTransaction: Int
    /// Transactions committed, for tests and metrics.
    private let transactionCount = Atomic<Int>(0)

    // Transaction state, on `queue` only.
    private var transactionOpen = false
    private var uncommittedEvents = 0
    private var touchedSinceCommit = Set<String>()
    /// Users with an exposure stored in the open transaction: their facts are always recomputed.
    private var exposedSinceCommit = Set<String>()
    private var awaitingCommit: [(Completion, AppendResult)] = []

    // Which users can have facts, on `queue` only (see `ExposedUserFilter`).
    /// Every user with an exposure as of the last commit; nil until built and after another
    /// connection committed.
    private var exposedUsers: ExposedUserFilter?
    /// `PRAGMA data_version` when `exposedUsers` was complete: it changes only when another
    /// connection (another process's ingest, say) commits.
    private var exposedUsersVersion: Int64 = 0
    private var lastFilterBuild: UInt64?

    /// The writer's statements, prepared once (`Connection.cached` would hash their long SQL on
    /// every use, several times per event).
    private var insertEvent, selectUserEvents, upsertFacts: Statement?

    private func prepared(_ slot: inout Statement?, _ sql: String) throws -> Statement {
        if let statement = slot {
            try statement.reset()
            return statement
        }
        let statement = try connection.prepare(sql)
        slot = statement
        return statement
    }

    init(connection: Connection, maxEventsPerTransaction: Int) {
        self.connection = connection
        self.maxEventsPerTransaction = maxEventsPerTransaction
        queue.setSpecific(key: Self.onWriterQueue, value: true)
    }

    var transactionsCommitted: Int { transactionCount.load(ordering: .relaxed) }

    func submit(_ events: [Event], commitEvery: Int? = nil, consumed: (@Sendable () -> Void)? = nil,
                completion: @escaping Completion) {
        if isClosed.load(ordering: .acquiring) {
            consumed?()
            completion(.failure(StoreError(kind: .closed, message: "closed", context: "append")))
            return
        }
        pending.withLock { $0.append(Request(events: events, commitEvery: commitEvery, consumed: consumed, completion: completion)) }
        queue.async { self.drain() }
    }

    /// Runs `body` on the write connection in a transaction of its own and returns after the
    /// commit; for the rare writes that are not events (the copy cache). An open bulk
    /// transaction is committed first, so `body` never rides in a load that could be abandoned.
    func perform<T>(context: String, _ body: (Connection) throws -> T) throws -> T {
        if isClosed.load(ordering: .acquiring) { throw StoreError(kind: .closed, message: "closed", context: context) }
        return try queue.sync {
            if transactionOpen { commitOpenTransaction() }
            return try connection.transaction { try body(connection) }
        }
    }

    /// Stops taking requests, waits for the queued ones and commits an open bulk transaction.
    func close() {
        isClosed.store(true, ordering: .releasing)
        // A completion handler may drop the last reference to the store, closing it from the
        // writer's own queue: finish inline there instead of waiting on ourselves.
        if DispatchQueue.getSpecific(key: Self.onWriterQueue) == true {
            if transactionOpen { commitOpenTransaction() }
            return
        }
        queue.sync {
            if transactionOpen { commitOpenTransaction() }
        }
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
        var commitNow = false
        for request in group {
            defer { request.consumed?() }
            do {
                if !transactionOpen {
                    try connection.execute("BEGIN IMMEDIATE")
                    transactionOpen = true
                }
            } catch {
                request.completion(.failure(error))
                continue
            }
            if request.commitEvery == nil {
                // Each regular request in its own savepoint, so a failing request is undone alone.
                commitNow = true
                do {
                    try connection.execute("SAVEPOINT request")
                    let inserted = try insert(request.events)
                    try connection.execute("RELEASE request")
                    track(request, inserted)
                } catch {
                    try? connection.execute("ROLLBACK TO request")
                    try? connection.execute("RELEASE request")
                    request.completion(.failure(error))
                }
            } else {
                // Bulk requests skip the savepoint: its rollback journal would hold a copy of every
                // page the batch touches, in memory. A failure abandons the whole open transaction.
                do {
                    track(request, try insert(request.events))
                    if let threshold = request.commitEvery, uncommittedEvents >= threshold { commitNow = true }
                } catch {
                    request.completion(.failure(error))
                    rollbackOpenTransaction(error)
                }
            }
        }
        if transactionOpen && (commitNow || isClosed.load(ordering: .acquiring)) { commitOpenTransaction() }
    }

    private func track(_ request: Request, _ inserted: (result: AppendResult, touched: [String], exposed: [String])) {
        touchedSinceCommit.formUnion(inserted.touched)
        exposedSinceCommit.formUnion(inserted.exposed)
        uncommittedEvents += request.events.count
        awaitingCommit.append((request.completion, inserted.result))
    }

    /// Abandons the open transaction; every request waiting for its commit fails.
    private func rollbackOpenTransaction(_ error: any Error) {
        try? connection.execute("ROLLBACK")
        let waiting = awaitingCommit
        awaitingCommit = []
        touchedSinceCommit = []
        exposedSinceCommit = []
        uncommittedEvents = 0
        transactionOpen = false
        for (completion, _) in waiting { completion(.failure(error)) }
    }

    /// Brings facts up to date for every user touched since the last commit, commits, and
    /// acknowledges the waiting requests. If facts or the commit fail, all of them fail.
    private func commitOpenTransaction() {
        let waiting = awaitingCommit
        let touched = touchedSinceCommit
        let exposed = exposedSinceCommit
        awaitingCommit = []
        touchedSinceCommit = []
        exposedSinceCommit = []
        uncommittedEvents = 0
        transactionOpen = false
        do {
            // A user with no exposure has no facts to recompute (nil filter: ask nothing, recompute all).
            let filter = try currentExposedUsers()
            for user in touched.sorted() where exposed.contains(user) || filter?.mightContain(user) ?? true {
                try refreshFacts(userID: user)
            }
            try connection.execute("COMMIT")
            if exposedUsers != nil { for user in exposed { exposedUsers!.insert(user) } }
            transactionCount.add(1, ordering: .relaxed)
            for (completion, result) in waiting { completion(.success(result)) }
        } catch {
            try? connection.execute("ROLLBACK")
            for (completion, _) in waiting { completion(.failure(error)) }
        }
    }

    /// The filter of exposed users when it can be trusted in the open transaction, else nil.
    ///
    /// Built from `facts` (one row per exposed user and experiment) on first use, and again when
    /// another connection has committed since, as that may have stored exposures; at most once a
    /// second, so a steady writer elsewhere costs a recompute of every touched user instead.
    private func currentExposedUsers() throws -> ExposedUserFilter? {
        let version = try connection.scalarInt("PRAGMA data_version") ?? 0
        if let exposedUsers, version == exposedUsersVersion, exposedUsers.inserted <= exposedUsers.capacity { return exposedUsers }
        exposedUsers = nil
        let now = DispatchTime.now().uptimeNanoseconds
        if let lastFilterBuild, now &- lastFilterBuild < 1_000_000_000 { return nil }
        lastFilterBuild = now
        let rows = try connection.scalarInt("SELECT count(*) FROM facts") ?? 0
        var filter = ExposedUserFilter(capacity: Int(rows) * 2)
        let users = try connection.prepare("SELECT user_id FROM facts")
        while try users.step() { filter.insert(users.text(0)) }
        exposedUsers = filter
        exposedUsersVersion = version
        return filter
    }

    private func insert(_ events: [Event]) throws -> (result: AppendResult, touched: [String], exposed: [String]) {
        var touched: [String] = []
        var exposed: [String] = []
        let statement = try prepared(&insertEvent, """
            INSERT INTO events (event_id, type, user_id, ts, experiment, variant, revenue, currency, product_id,
                                copy_source, copy_text, copy_fallback_reason)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (event_id) DO NOTHING
            """)
        var result = AppendResult()
        // Insert in user order (stable, so the first of two same-id events still wins): neighbouring
        // inserts then land on the same pages of the (user_id, event_id) key.
        let order = events.indices.sorted { a, b in
            let ua = events[a].userID, ub = events[b].userID
            return ua != ub ? ua < ub : a < b
        }
        for index in order {
            let event = events[index]
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
                if event.type == .exposure { exposed.append(event.userID) }
            } else {
                result.duplicates += 1
            }
        }
        return (result, touched, exposed)
    }

    /// Recomputes one user's facts from all of the user's stored events.
    private func refreshFacts(userID: String) throws {
        try FactsRefresh.refresh(userID: userID, select: try prepared(&selectUserEvents, FactsRefresh.selectEventsSQL),
                                 upsert: try prepared(&upsertFacts, FactsRefresh.upsertSQL))
    }
}
