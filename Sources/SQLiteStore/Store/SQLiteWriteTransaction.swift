import Events
import ExperimentDefinitions
import Synchronization

/// One write transaction of the SQLite writer: the batches `GroupCommitWriter` gathered, their
/// events inserted in user order, the touched users' facts refreshed (inline for a small
/// transaction, beside it with `SnapshotFacts` for a large or bulk one), the people step applied,
/// the commit, and the filters told what it exposed.
///
/// Owned by `GroupCommitWriter` and used only on its queue, on its connection.
final class SQLiteWriteTransaction {
    private let connection: Connection
    private let readers: ReaderPool
    /// Transactions of at least this many events, and every bulk one, compute facts beside the
    /// writer (`SnapshotFacts`).
    let factsBesideMinimum: Int
    /// People (one person, many ids): links made by the open transaction and the persons recomputed.
    private let people: SQLitePeopleStep
    /// Which users can have facts, and which pairs have a sticky record.
    private let filters: WriterFilters
    /// The experiments whose facts the open transaction writes: their change counters move with it.
    private let changes = ExperimentChanges()
    /// Transactions committed, for tests and metrics.
    private let transactionCount = Atomic<Int>(0)

    /// The statements, prepared once (`Connection.cached` would hash their long SQL on every use,
    /// several times per event).
    private var insertEvent, selectUserEvents, upsertFacts, clearObservation: Statement?

    init(connection: Connection, readers: ReaderPool, filters: WriterFilters, factsBesideMinimum: Int) {
        self.connection = connection
        self.readers = readers
        self.filters = filters
        self.factsBesideMinimum = factsBesideMinimum
        people = SQLitePeopleStep(connection: connection, changes: changes)
    }

    var committed: Int { transactionCount.load(ordering: .relaxed) }

    /// One transaction: every event of `batches` sorted by user id with arrival order breaking
    /// ties (so the first copy of a key is the one stored), each touched user's facts refreshed
    /// (inline for small transactions, beside the writer for large and `bulk` ones), then the
    /// commit. Returns each batch's counts.
    func run(_ batches: [[Event]], bulk: Bool) throws -> [AppendResult] {
        var results = [AppendResult](repeating: AppendResult(), count: batches.count)
        var events: [Event] = []
        var owners: [Int32] = []
        events.reserveCapacity(batches.reduce(0) { $0 + $1.count })
        owners.reserveCapacity(events.capacity)
        for (r, batch) in batches.enumerated() {
            events.append(contentsOf: batch)
            owners.append(contentsOf: repeatElement(Int32(r), count: batch.count))
        }
        guard !events.isEmpty else { return results }
        let keys = SortKeys(events)
        let order = keys.sortedOrder()
        try connection.execute("BEGIN IMMEDIATE")
        do {
            // A user with no exposure has no facts to refresh (nil filter: ask nothing, refresh all).
            let filter = try filters.current()
            try people.begin()
            if events.count >= factsBesideMinimum || bulk {
                try writeWithFactsBeside(events, owners: owners, keys: keys, order: order, filter: filter, results: &results)
            } else {
                try writeWithFactsInline(events, owners: owners, keys: keys, order: order, filter: filter, results: &results)
            }
            for done in try people.apply(events) {
                newlyExposed.append(done.person)
                for experiment in done.experiments { for id in done.members { filters.exposed(experiment: experiment, userID: id) } }
            }
            // New events end a simulation's recorded end of observation (ObservationWindowStore):
            // the store no longer ends there.
            if results.contains(where: { $0.stored > 0 }) {
                let clear = try connection.prepared(&clearObservation, "DELETE FROM observation")
                try clear.run()
                clear.finish()
            }
            try changes.write(on: connection)
            try connection.execute("COMMIT")
            // Before the completions run: an acknowledged exposure is the next call's sticky record.
            filters.publishStickyRecords()
            filters.committed(exposing: newlyExposed)
            newlyExposed = []
            transactionCount.add(1, ordering: .relaxed)
            return results
        } catch {
            newlyExposed = []
            changes.discard()
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
        let upsert = try connection.prepared(&upsertFacts, FactsRefresh.upsertSQL)
        for (u, range) in users.enumerated() where stored[u] > 0 {
            if let facts = beside.result(u, stored: Int(stored[u])) {
                try FactsRefresh.write(facts, upsert: upsert, changes: changes)
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

    /// Every column of `EventColumns`, in its order.
    private static let insertSQL = """
        INSERT INTO events (\(EventColumns.names))
        VALUES (\(EventColumns.all.map { _ in "?" }.joined(separator: ", ")))
        ON CONFLICT (user_id, event_id) DO NOTHING
        """

    /// Inserts one event; false when its key (user_id, event_id) is already stored. By pointer: an
    /// `Event` argument was copied whole at the call, every string retained and released.
    private func insert(_ pointer: UnsafePointer<Event>) throws -> Bool {
        let statement = try connection.prepared(&insertEvent, Self.insertSQL)
        let columns = EventColumns.readers
        for index in columns.indices {
            try statement.bind(Int32(index + 1), columns[index](pointer))
        }
        try statement.run()
        return connection.changes == 1
    }

    /// Recomputes one user's facts from all of the user's stored events.
    private func refreshFacts(userID: UserID) throws {
        try FactsRefresh.refresh(userID: userID, select: try connection.prepared(&selectUserEvents, FactsRefresh.selectEventsSQL),
                                 upsert: try connection.prepared(&upsertFacts, FactsRefresh.upsertSQL), changes: changes)
    }
}
