import Events
import ExperimentDefinitions

/// One write transaction: several callers' batches stored together, their users' facts
/// recomputed from all of those users' events before the commit.
///
/// Facts stay exact with any number of nodes writing at once. The transaction inserts its
/// events first, then locks its users (transaction-scoped advisory locks), then reads each
/// locked user's events and writes their facts. Locks are released only after the commit is
/// visible, and under READ COMMITTED each statement sees everything committed before it, so the
/// last transaction to lock a user reads every event of that user that any committed transaction
/// stored, and its own; a transaction still holding uncommitted events of the user locks the user
/// later and recomputes again. Inserting before locking keeps the insert, most of the work, out
/// of the part that transactions with a user in common take in turn.
///
/// PostgreSQL's lock table is small (64 locks per connection by default), so a user is one of
/// `buckets` hash buckets. A transaction with few users takes its buckets shared, then one
/// exclusive lock per user; a larger one (bulk ingest, grouped requests) takes its buckets
/// exclusive and no user locks. Either way two transactions with a user in common exclude each
/// other, and each takes at most `2 × buckets` locks. Locks are taken buckets first, each kind in
/// ascending key order, so no two transactions wait on each other in a cycle; the insert, the
/// only step that can wait on another transaction's rows (a duplicate in flight), runs before
/// any lock is held and in key order.
enum EventWriteTransaction {
    /// Run once per writer connection. Temporary tables the batch and its facts are copied into
    /// (emptied at every commit): the events and facts tables' columns, types, collations and
    /// NOT NULLs, without their primary keys, so a batch may hold a duplicate until the insert
    /// drops it. No sequential scans where an index serves: the statements look users up by
    /// `= ANY($1)`, and with missing or stale statistics (a young database, before autovacuum
    /// has analyzed it) the planner may pick a scan of the whole table, on every transaction.
    /// The staging tables have no index, so they are still read sequentially. No JIT: the
    /// statements are short, and the cost of a disabled scan would make every one of them look
    /// expensive enough to compile.
    static let prepareSession = """
        CREATE TEMPORARY TABLE abctl_staging (LIKE events) ON COMMIT DELETE ROWS;
        CREATE TEMPORARY TABLE abctl_late_staging (LIKE events) ON COMMIT DELETE ROWS;
        CREATE TEMPORARY TABLE abctl_facts_staging (LIKE facts) ON COMMIT DELETE ROWS;
        CREATE TEMPORARY TABLE abctl_people_staging (LIKE people) ON COMMIT DELETE ROWS;
        SET enable_seqscan = off;
        SET jit = off
        """

    static let columns = EventColumns.names

    static let buckets = 512
    /// At most this many users get locks of their own; more lock whole buckets.
    static let maxUserLocks = 256

    /// Bucket keys of the users in `$1` (a `text[]`), each once, ascending.
    private static let bucketKeys = """
        SELECT DISTINCT (hashtextextended(u, 0) & \(buckets - 1))::integer AS b FROM unnest($1::text[]) u ORDER BY b OFFSET 0
        """
    static let lockBucketsShared = "SELECT count(*) FROM (SELECT pg_advisory_xact_lock_shared(1, b) FROM (\(bucketKeys)) ordered) locked"
    static let lockBucketsExclusive = "SELECT count(*) FROM (SELECT pg_advisory_xact_lock(1, b) FROM (\(bucketKeys)) ordered) locked"
    static let lockUsers = """
        SELECT count(*) FROM (
            SELECT pg_advisory_xact_lock(k) FROM (
                SELECT DISTINCT hashtextextended(u, 0) AS k FROM unnest($1::text[]) u ORDER BY k OFFSET 0
            ) ordered
        ) locked
        """

    /// From a staging table, in key order, so two transactions inserting the same events wait on
    /// each other in one direction only.
    static func insert(from table: String) -> String {
        "INSERT INTO events (\(columns)) SELECT \(columns) FROM \(table) ORDER BY user_id, event_id ON CONFLICT DO NOTHING"
    }

    /// The stored events of the users with facts to recompute, except those this transaction
    /// inserted (the caller has them): the users are `$1` (the batch's users with an exposure in
    /// it) and those of `$2` (the batch's other users) that have facts already (a user has a
    /// facts row exactly when an exposure of theirs is stored). Index lookups per user, whatever
    /// the tables' sizes.
    static let selectEvents = """
        SELECT user_id, \(EventColumns.names(FactsBuilder.Source.columns))
        FROM events
        WHERE user_id = ANY(ARRAY(
            SELECT unnest($1::text[]) UNION ALL SELECT user_id FROM facts WHERE user_id = ANY($2::text[])))
          AND xmin <> pg_current_xact_id()::xid
        ORDER BY user_id
        """

    /// The facts rows a transaction computed, as `CopyBuffer` writes them, into the staging table.
    static let copyFacts = "COPY abctl_facts_staging (\(FactColumns.names)) FROM STDIN"

    /// A user's facts rows never go away (events are only added), so writing is an upsert.
    static let upsertFacts = FactColumns.upsert("SELECT \(FactColumns.names) FROM abctl_facts_staging")

    /// Each experiment of the facts the transaction wrote has its change counter moved by one, in
    /// the shard of this connection (`pg_backend_pid` is unique among live connections, so two
    /// transactions running at once seldom share one), in experiment order. Its row lock lasts only
    /// to the commit, which follows in the same round trip.
    static let moveChangeCounters = """
        INSERT INTO experiment_changes (experiment, shard, counter)
        SELECT DISTINCT experiment, pg_backend_pid() % \(changeShards), 1 FROM abctl_facts_staging ORDER BY 1
        ON CONFLICT (experiment, shard) DO UPDATE SET counter = experiment_changes.counter + 1
        """
    static let changeShards = 1024

    typealias Key = InsertOrder.Key

    /// How a transaction fits with the others of its node (see `InsertOrder`): `register` gets
    /// the transaction's keys and answers those to insert late; `waitForEarlier` runs before the
    /// transaction's first insert when it has late keys; `inserted` follows the first insert.
    struct Turn {
        var register: (Dictionary<Key, Int>.Keys) -> Set<Key>
        var inserted: () -> Void
        var waitForEarlier: () -> Void

        /// For a transaction alone on its node.
        static var alone: Turn { Turn(register: { _ in [] }, inserted: {}, waitForEarlier: {}) }
    }

    /// Stores `batches` in one transaction on `c` and returns each batch's counts. A repeat of
    /// an event already stored, or already earlier in the same call, is a duplicate of the first.
    static func run(_ batches: [[Event]], on c: Connection, turn: Turn = .alone) throws -> [AppendResult] {
        var firstBatch: [Key: Int] = [:]
        var unique: [Event] = []
        var offered = [Int](repeating: 0, count: batches.count)
        for (index, events) in batches.enumerated() {
            offered[index] = events.count
            for e in events {
                let key = Key(user: e.userID, event: e.id)
                guard firstBatch[key] == nil else { continue }
                firstBatch[key] = index
                unique.append(e)
            }
        }
        if unique.isEmpty { return offered.map { AppendResult(stored: 0, duplicates: $0) } }
        let late = turn.register(firstBatch.keys)
        var batchEvents: [UserID: [Event]] = [:]
        var rows = CopyBuffer(reserve: unique.count * 96)
        var lateRows = CopyBuffer()
        for e in unique {
            batchEvents[e.userID, default: []].append(e)
            if late.isEmpty || !late.contains(Key(user: e.userID, event: e.id)) { rows.add(e) } else { lateRows.add(e) }
        }
        let users = Set(batchEvents.keys)
        let exposed = Set(batchEvents.lazy.filter { $0.value.contains { $0.type == .exposure } }.map(\.key))
        // People (docs/People.md): identifies name a second id; both ids' persons are locked with the users.
        let identifies = unique.filter { ($0.type == .identified && $0.identity != nil) || ($0.type == .exposure && $0.storeAccountID != nil) }
        let ids = users.union(identifies.lazy.compactMap { $0.identity ?? $0.storeAccountID.map(UserID.init) })
        let allIDs = arrayLiteral(ids.sorted().lazy.map(\.text))

        try c.execute("BEGIN", context: "append events")
        do {
            var stored = [Int](repeating: 0, count: batches.count)
            func insertStaged(from table: String, _ data: CopyBuffer) throws {
                try c.copyIn("COPY \(table) (\(columns)) FROM STDIN", data: data.bytes, context: "append events (copy)")
                if batches.count == 1 {
                    stored[0] += try c.executePrepared("insert_from_\(table)", insert(from: table), [],
                                                       context: "append events (insert)").affectedRows
                } else {
                    let keys = try c.executePrepared("insert_returning_from_\(table)", insert(from: table) + " RETURNING user_id, event_id", [],
                                                     context: "append events (insert)")
                    for row in 0..<keys.count {
                        if let index = firstBatch[Key(user: UserID(keys.text(row, 0)), event: EventID(keys.text(row, 1)))] { stored[index] += 1 }
                    }
                }
            }
            // Wait for the earlier holders before inserting anything: a transaction that held
            // rows while it waited here could close a cycle the database cannot see (another
            // node's transaction waiting on its rows, while holding rows the earlier one waits on).
            if !lateRows.isEmpty { turn.waitForEarlier() }
            if !rows.isEmpty { try insertStaged(from: "abctl_staging", rows) }
            turn.inserted()
            if !lateRows.isEmpty { try insertStaged(from: "abctl_late_staging", lateRows) }
            // The persons the ids belonged to when the transaction began are locked with them; a
            // link another transaction committed before these locks were granted is found below.
            let personsBefore = try c.executePrepared("persons_of", "SELECT DISTINCT person_id FROM people WHERE user_id = ANY($1::text[])",
                                                      [allIDs], context: "append events (read persons)")
            var locked = ids
            for row in 0..<personsBefore.count { locked.insert(UserID(personsBefore.text(row, 0))) }
            let allLocked = arrayLiteral(locked.sorted().lazy.map(\.text))
            if locked.count <= maxUserLocks {
                try c.executePrepared("lock_buckets_shared", lockBucketsShared, [allLocked], context: "append events (lock users)")
                try c.executePrepared("lock_users", lockUsers, [allLocked], context: "append events (lock users)")
            } else {
                try c.executePrepared("lock_buckets", lockBucketsExclusive, [allLocked], context: "append events (lock users)")
            }
            var people = try PeopleStep(ids: ids, identifies: identifies, on: c)
            let newPersons = people.persons.subtracting(locked)
            if !newPersons.isEmpty {
                // Rare: a link committed while this transaction waited. Locked in a second round (a
                // deadlock here is detected by PostgreSQL and fails the batch, which is then retried).
                try c.executePrepared("lock_users_late", lockUsers, [arrayLiteral(newPersons.sorted().lazy.map(\.text))],
                                      context: "append events (lock persons)")
                people = try PeopleStep(ids: ids, identifies: identifies, on: c)
            }
            try people.apply(on: c)
            var facts = CopyBuffer()
            let linked = users.filter { people.graph.personOf[$0] != nil }
            try refreshFacts(exposed: exposed.subtracting(linked), others: users.subtracting(exposed).subtracting(linked),
                             batchEvents: batchEvents, into: &facts, on: c)
            try people.refreshPersons(people.touchedPersons(users: linked), into: &facts, on: c)
            if !facts.isEmpty {
                try c.copyIn(copyFacts, data: facts.bytes, context: "append events (write facts)")
                try c.executePrepared("upsert_facts", upsertFacts, [], context: "append events (write facts)")
            }
            try people.dropAbsorbedFacts(on: c)
            // New events end a simulation's recorded end of observation (ObservationWindowStore):
            // the store no longer ends there. The experiments of the facts written have their
            // change counters moved. Both are sent with the commit, so they cost no round trip.
            // (A transaction that stored nothing new changed no report, whatever facts it rewrote.)
            let storedAny = stored.contains { $0 > 0 }
            let finish = (storedAny && !facts.isEmpty ? moveChangeCounters + "; " : "") + (storedAny ? "DELETE FROM observation; " : "")
            try c.execute(finish + "COMMIT", context: "append events (commit)")
            return zip(offered, stored).map { AppendResult(stored: $1, duplicates: $0 - $1) }
        } catch {
            if c.isHealthy { _ = try? c.execute("ROLLBACK", context: "append events (rollback)") }
            throw error
        }
    }

    /// Recomputes, with `FactsBuilder`, the facts of the batch's users who have any: those
    /// `exposed` in the batch and those of `others` with stored facts. A user's events are the
    /// stored ones read back (not this transaction's) and the batch's events this transaction
    /// inserted: those whose event_id is not among the stored ones (a repeat of a stored event,
    /// or of one a concurrent transaction committed while this one waited, is read back instead).
    static func refreshFacts(exposed: Set<UserID>, others: Set<UserID>, batchEvents: [UserID: [Event]],
                                     into facts: inout CopyBuffer, on c: Connection) throws {
        if exposed.isEmpty && others.isEmpty { return }
        let events = try c.executePrepared("select_user_events", selectEvents,
                                           [arrayLiteral(exposed.sorted().lazy.map(\.text)), arrayLiteral(others.sorted().lazy.map(\.text))],
                                           context: "append events (read users' events)")
        var stored: [UserID: [FactsBuilder.Source]] = [:]
        for (row, source) in events.factsSources().enumerated() {
            stored[UserID(events.text(row, 0)), default: []].append(source)
        }
        facts.reserve((events.count + exposed.count) * 96)
        for user in exposed.union(stored.keys).sorted() {
            var sources = stored[user] ?? []
            let storedIDs = Set(sources.lazy.map(\.eventID))
            for e in batchEvents[user] ?? [] where !storedIDs.contains(e.id) { sources.append(FactsBuilder.Source(e)) }
            for f in FactsBuilder.facts(userID: user, events: sources) { facts.add(f) }
        }
    }
}
