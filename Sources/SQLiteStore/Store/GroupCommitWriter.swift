import Events
import ExperimentDefinitions
import Dispatch
import Synchronization

/// The single writer: callers' batches queue up, and whatever has queued while the previous
/// transaction ran is committed together in one transaction (group commit). Each caller hears
/// back only after the transaction holding its batch has committed.
///
/// A transaction writes its events sorted by user and refreshes each touched user's facts once
/// per commit, in user order. A small one (a few requests of `POST /v1/events`) does it right
/// after that user's events, while their pages are still in the cache; a large or bulk one
/// (`abctl ingest`) has `SnapshotFacts` compute them on another thread while it inserts, then
/// upserts them. Sorted keys also touch each page of the (user_id, event_id) B-tree at most once per
/// transaction instead of in random order.
///
/// Bulk requests (`abctl ingest`) are held in memory until `commitEvery` events have gathered
/// (or a regular request, `flush` or `close` comes), then written in one such transaction, so a
/// large load commits a few times instead of once per batch. Their completions, too, wait for
/// the commit; `consumed` tells the producer early that the writer has taken the batch (at once
/// while less than a commit's worth is queued, so reading overlaps writing), bounding its memory
/// to about two commits' worth of events.
///
/// `@unchecked Sendable`: the connection, its statements and the held events are touched only
/// on `queue`, a serial queue; the request list is behind a `Mutex`.
final class GroupCommitWriter: @unchecked Sendable {
    typealias Completion = @Sendable (Result<AppendResult, any Error>) -> Void

    struct Request {
        var events: [Event]
        /// nil: commit at the end of this drain. A number: the events may wait in memory until
        /// this many events are held.
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
    /// Transactions of at least this many events, and every bulk one, compute facts beside the
    /// writer (`SnapshotFacts`).
    let factsBesideMinimum: Int
    private let readers: ReaderPool
    /// Transactions committed, for tests and metrics.
    private let transactionCount = Atomic<Int>(0)

    /// Requests taken but not yet committed (bulk ones wait here), on `queue` only.
    private var held: [Request] = []
    private var heldEvents = 0

    /// Which users can have facts, and which pairs have a sticky record (`WriterFilters`), on `queue` only.
    private let filters: WriterFilters
    /// The (experiment, user) pairs with a sticky record, for the assign path (see `StickyRecordFilter`).
    var stickyRecords: StickyRecordFilter { filters.stickyRecords }
    private let path: String
    /// A reader has asked for the filter to be checked again (at most one check queued).
    private let stickyCheckQueued = Atomic<Bool>(false)

    /// SPEC §4 people, on `queue` only: links made by the open transaction and the persons recomputed.
    private let people: SQLitePeopleStep

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

    init(connection: Connection, path: String, readers: ReaderPool, maxEventsPerTransaction: Int, factsBesideMinimum: Int) {
        self.connection = connection
        people = SQLitePeopleStep(connection: connection)
        filters = WriterFilters(connection: connection)
        self.path = path
        self.readers = readers
        self.maxEventsPerTransaction = maxEventsPerTransaction
        self.factsBesideMinimum = factsBesideMinimum
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
        // A bulk batch counts as taken at once while the queue holds less than one commit's worth,
        // so the producer reads on while the writer writes the previous commit.
        let takenNow: Bool = pending.withLock { queued in
            let early = commitEvery.map { queued.reduce(events.count) { $0 + $1.events.count } <= $0 } ?? false
            queued.append(Request(events: events, commitEvery: commitEvery, consumed: early ? nil : consumed, completion: completion))
            return early
        }
        if takenNow { consumed?() }
        queue.async { self.drain() }
    }

    /// Runs `body` on the write connection in a transaction of its own and returns after the
    /// commit; for the rare writes that are not events (the copy cache). Held bulk events are
    /// committed first, so `body` never rides in a load that could be abandoned.
    func perform<T>(context: String, _ body: (Connection) throws -> T) throws -> T {
        if isClosed.load(ordering: .acquiring) { throw StoreError(kind: .closed, message: "closed", context: context) }
        return try queue.sync {
            if !held.isEmpty { commitHeld() }
            defer { filters.publishStickyRecords() }
            return try connection.transaction { try body(connection) }
        }
    }

    /// Stops taking requests, waits for the queued ones and commits held bulk events.
    func close() {
        isClosed.store(true, ordering: .releasing)
        // A completion handler may drop the last reference to the store, closing it from the
        // writer's own queue: finish inline there instead of waiting on ourselves.
        if DispatchQueue.getSpecific(key: Self.onWriterQueue) == true {
            if !held.isEmpty { commitHeld() }
            return
        }
        queue.sync {
            if !held.isEmpty { commitHeld() }
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
        var commitNow = isClosed.load(ordering: .acquiring)
        for request in group {
            held.append(request)
            heldEvents += request.events.count
            if let threshold = request.commitEvery {
                if heldEvents >= threshold { commitNow = true }
            } else {
                commitNow = true
            }
            request.consumed?()
        }
        if commitNow { commitHeld() }
    }

    /// Writes every held request in one transaction and answers them after the commit. When
    /// that fails, each regular request is tried again in a transaction of its own, so a
    /// failing one fails alone; held bulk requests fail together (a load re-run stores them).
    private func commitHeld() {
        let requests = held
        held = []
        heldEvents = 0
        do {
            let results = try write(requests)
            for (request, result) in zip(requests, results) { request.completion(.success(result)) }
        } catch {
            if requests.count == 1 || requests.allSatisfy({ $0.commitEvery != nil }) {
                for request in requests { request.completion(.failure(error)) }
                return
            }
            for request in requests {
                if request.commitEvery != nil {
                    request.completion(.failure(error))
                    continue
                }
                do {
                    request.completion(.success(try write([request])[0]))
                } catch {
                    request.completion(.failure(error))
                }
            }
        }
    }

    /// One transaction: every event of `requests` sorted by user id with arrival order breaking
    /// ties (so the first copy of a key is the one stored), each touched user's facts refreshed
    /// (inline for small transactions, beside the writer for large and bulk ones), then the commit.
    /// Returns each request's counts.
    private func write(_ requests: [Request]) throws -> [AppendResult] {
        var results = [AppendResult](repeating: AppendResult(), count: requests.count)
        var events: [Event] = []
        var owners: [Int32] = []
        events.reserveCapacity(requests.reduce(0) { $0 + $1.events.count })
        owners.reserveCapacity(events.capacity)
        for (r, request) in requests.enumerated() {
            events.append(contentsOf: request.events)
            owners.append(contentsOf: repeatElement(Int32(r), count: request.events.count))
        }
        guard !events.isEmpty else { return results }
        let keys = SortKeys(events)
        let order = keys.sortedOrder()
        try connection.execute("BEGIN IMMEDIATE")
        do {
            // A user with no exposure has no facts to refresh (nil filter: ask nothing, refresh all).
            let filter = try filters.current()
            try people.begin()
            if events.count >= factsBesideMinimum || requests.contains(where: { $0.commitEvery != nil }) {
                try writeWithFactsBeside(events, owners: owners, keys: keys, order: order, filter: filter, results: &results)
            } else {
                try writeWithFactsInline(events, owners: owners, keys: keys, order: order, filter: filter, results: &results)
            }
            for done in try people.apply(events) {
                newlyExposed.append(done.person)
                for experiment in done.experiments { for id in done.members { filters.exposed(experiment: experiment, userID: id) } }
            }
            try connection.execute("COMMIT")
            // Before the completions run: an acknowledged exposure is the next call's sticky record.
            filters.publishStickyRecords()
            filters.committed(exposing: newlyExposed)
            newlyExposed = []
            transactionCount.add(1, ordering: .relaxed)
            return results
        } catch {
            newlyExposed = []
            try? connection.execute("ROLLBACK")
            throw error
        }
    }

    /// Users with an exposure stored by the open transaction, for the filter after the commit.
    private var newlyExposed: [UserID] = []

    /// Inserts each user's events and refreshes the user's facts right after them.
    private func writeWithFactsInline(_ events: [Event], owners: [Int32], keys: SortKeys, order: [Int32],
                                      filter: ExposedUserFilter?, results: inout [AppendResult]) throws {
        var start = 0
        while start < order.count {
            let end = userEnd(from: start, keys: keys, order: order)
            let (stored, exposed) = try insertUser(events, owners: owners, order: order, start..<end, results: &results)
            let user = events[Int(order[start])].userID
            if stored > 0, people.peopleExist, let person = try people.linkedPerson(of: user) {
                people.refreshLater(person)
            } else if stored > 0, identifies(events, order: order, start..<end) {
                people.refreshLater(user)   // computed once, after its identifies are applied
                if exposed { newlyExposed.append(user) }
            } else {
                if stored > 0 && (exposed || filter?.mightContain(user) ?? true) { try refreshFacts(userID: user) }
                if exposed { newlyExposed.append(user) }
            }
            start = end
        }
    }

    /// Inserts every event while `SnapshotFacts` computes the touched users' facts on another
    /// thread, then upserts them (recomputing inline any user the worker saw differently).
    private func writeWithFactsBeside(_ events: [Event], owners: [Int32], keys: SortKeys, order: [Int32],
                                      filter: ExposedUserFilter?, results: inout [AppendResult]) throws {
        var users: [Range<Int>] = []
        var start = 0
        while start < order.count {
            let end = userEnd(from: start, keys: keys, order: order)
            let user = events[Int(order[start])].userID
            if people.peopleExist, let person = try people.linkedPerson(of: user) {
                people.refreshLater(person)   // from all of the person's ids, after the inserts
            } else if identifies(events, order: order, start..<end) {
                people.refreshLater(user)     // computed once, after its identifies are applied
            } else if filter?.mightContain(user) ?? true || (start..<end).contains(where: { events[Int(order[$0])].type == .exposure }) {
                users.append(start..<end)
            }
            start = end
        }
        let beside = SnapshotFacts(events: events, order: order, users: users, readers: readers)
        // Also on failure: the worker's read transaction ends before this one is rolled back.
        defer { beside.wait() }
        var stored = [Int32](repeating: 0, count: users.count)
        var next = 0
        start = 0
        while start < order.count {
            let end = userEnd(from: start, keys: keys, order: order)
            let (count, exposed) = try insertUser(events, owners: owners, order: order, start..<end, results: &results)
            if next < users.count && users[next].lowerBound == start {
                stored[next] = Int32(count)
                next += 1
            }
            if exposed { newlyExposed.append(events[Int(order[start])].userID) }
            start = end
        }
        beside.wait()
        let upsert = try prepared(&upsertFacts, FactsRefresh.upsertSQL)
        for (u, range) in users.enumerated() where stored[u] > 0 {
            if let facts = beside.result(u, stored: Int(stored[u])) {
                try FactsRefresh.write(facts, upsert: upsert)
            } else {
                try refreshFacts(userID: events[Int(order[range.lowerBound])].userID)
            }
        }
    }

    /// Whether the user of `order` positions `range` sends an `identified` event: it will most
    /// likely join a person in `SQLitePeopleStep.apply`, so its facts are computed there, once, rather than
    /// written now and deleted by the link (a log-in per user made a load with log-ins write its
    /// users' facts twice).
    private func identifies(_ events: [Event], order: [Int32], _ range: Range<Int>) -> Bool {
        range.contains { events[Int(order[$0])].type == .identified }
    }

    /// The end of the run of `order` positions from `start` that share one user id.
    private func userEnd(from start: Int, keys: SortKeys, order: [Int32]) -> Int {
        let first = Int(order[start])
        var end = start + 1
        while end < order.count, keys.sameUser(first, Int(order[end])) { end += 1 }
        return end
    }

    /// Inserts one user's events (`order` positions `range`); returns how many were stored and
    /// whether an exposure was among them.
    private func insertUser(_ events: [Event], owners: [Int32], order: [Int32], _ range: Range<Int>,
                            results: inout [AppendResult]) throws -> (stored: Int, exposed: Bool) {
        var stored = 0, exposed = false
        // Through the buffer, each event is read in place: `events[i]` passed on copied all its
        // strings (a retain and a release each), a few percent of a bulk load.
        try events.withUnsafeBufferPointer { events in
            for position in range {
                let i = Int(order[position])
                if try insert(events.baseAddress! + i) {
                    results[Int(owners[i])].stored += 1
                    stored += 1
                    let type = events[i].type
                    if type == .identified || (type == .exposure && events[i].storeAccountID != nil) {
                        people.stored(identifying: i)
                    }
                    if type == .exposure {
                        exposed = true
                        // Before the commit: a reader that sees the commit sees the pair.
                        if filters.keepsStickyRecords, let experiment = events[i].experiment {
                            filters.exposed(experiment: experiment, userID: events[i].userID)
                        }
                    }
                } else {
                    results[Int(owners[i])].duplicates += 1
                }
            }
        }
        return (stored, exposed)
    }

    /// Builds `stickyRecords` if needed and publishes it; from now on every commit keeps it.
    /// Asynchronous: until it is published, sticky readers read the store.
    func keepStickyRecords() {
        queue.async {
            self.filters.stickyRecordsWanted = true
            self.checkStickyRecords()
        }
    }

    /// For a reader that found the WAL index past the published stamp while the writer was
    /// idle (another process committed, say): checks the filter again on the writer's queue.
    func recheckStickyRecords() {
        guard stickyCheckQueued.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { return }
        queue.async {
            self.stickyCheckQueued.store(false, ordering: .releasing)
            self.checkStickyRecords()
        }
    }

    /// On `queue`: rebuilds the filter in a read transaction of its own if another connection
    /// has committed since it was complete (at most once a second), then publishes it.
    private func checkStickyRecords() {
        guard filters.stickyRecordsWanted, !isClosed.load(ordering: .acquiring) else { return }
        do {
            try connection.execute("BEGIN")
            do {
                try filters.refreshStickyRecords()
                try connection.execute("COMMIT")
            } catch {
                try? connection.execute("ROLLBACK")
                throw error
            }
            filters.publishStickyRecords()
        } catch {
            filters.dropStickyRecords()
        }
    }

    /// Every column of `EventColumns`, in its order.
    private static let insertSQL = """
        INSERT INTO events (\(EventColumns.names))
        VALUES (\(EventColumns.all.map { _ in "?" }.joined(separator: ", ")))
        ON CONFLICT (user_id, event_id) DO NOTHING
        """

    /// Inserts one event; false when its key (user_id, event_id) is already stored. By pointer: an
    /// `Event` argument was copied whole at the call, every string retained and released.
    private func insert(_ pointer: UnsafePointer<Event>) throws -> Bool {
        let statement = try prepared(&insertEvent, Self.insertSQL)
        let readers = EventColumns.readers
        for index in readers.indices {
            try statement.bind(Int32(index + 1), readers[index](pointer))
        }
        try statement.run()
        return connection.changes == 1
    }

    /// Recomputes one user's facts from all of the user's stored events.
    private func refreshFacts(userID: UserID) throws {
        try FactsRefresh.refresh(userID: userID, select: try prepared(&selectUserEvents, FactsRefresh.selectEventsSQL),
                                 upsert: try prepared(&upsertFacts, FactsRefresh.upsertSQL))
    }
}

