import Events

/// One write transaction: several callers' batches stored together, their users' facts
/// recomputed from all of those users' events before the commit.
///
/// Facts stay exact with any number of nodes writing at once: before inserting, the transaction
/// locks its users (transaction-scoped advisory locks), then reads each locked user's events.
/// Another transaction holding one of those users has committed before the read starts, and
/// under READ COMMITTED each statement sees everything committed before it, so the facts are
/// computed from all of the user's events, whatever node stored them.
///
/// PostgreSQL's lock table is small (64 locks per connection by default), so a user is one of
/// `buckets` hash buckets. A transaction with few users takes its buckets shared, then one
/// exclusive lock per user; a larger one (bulk ingest, grouped requests) takes its buckets
/// exclusive and no user locks. Either way two transactions with a user in common exclude each
/// other, and each takes at most `2 × buckets` locks. Locks are taken buckets first, each kind in
/// ascending key order, so no two transactions wait on each other in a cycle.
enum EventWriteTransaction {
    /// Per-connection temporary table the batch is copied into (emptied at every commit).
    static let createStaging = """
        CREATE TEMPORARY TABLE abctl_staging (
            user_id text COLLATE "C" NOT NULL,
            event_id text COLLATE "C" NOT NULL,
            type smallint NOT NULL,
            ts bigint NOT NULL,
            experiment text COLLATE "C",
            variant text COLLATE "C",
            revenue double precision,
            currency text,
            product_id text,
            copy_source text,
            copy_text text,
            copy_fallback_reason text
        ) ON COMMIT DELETE ROWS
        """

    static let columns = "user_id, event_id, type, ts, experiment, variant, revenue, currency, product_id, copy_source, copy_text, copy_fallback_reason"

    static let buckets = 512
    /// At most this many users get locks of their own; more lock whole buckets.
    static let maxUserLocks = 256

    private static let bucketKeys = """
        SELECT DISTINCT (hashtextextended(user_id, 0) & \(buckets - 1))::integer AS b FROM abctl_staging ORDER BY b OFFSET 0
        """
    static let lockBucketsShared = "SELECT count(*) FROM (SELECT pg_advisory_xact_lock_shared(1, b) FROM (\(bucketKeys)) ordered) locked"
    static let lockBucketsExclusive = "SELECT count(*) FROM (SELECT pg_advisory_xact_lock(1, b) FROM (\(bucketKeys)) ordered) locked"
    static let lockUsers = """
        SELECT count(*) FROM (
            SELECT pg_advisory_xact_lock(k) FROM (
                SELECT DISTINCT hashtextextended(user_id, 0) AS k FROM abctl_staging ORDER BY k OFFSET 0
            ) ordered
        ) locked
        """

    static let insert = "INSERT INTO events (\(columns)) SELECT \(columns) FROM abctl_staging ON CONFLICT DO NOTHING"

    /// Users with facts to recompute: those in the batch with an exposure now or before
    /// (a user has a facts row exactly when an exposure of theirs is stored).
    static let selectEvents = """
        SELECT user_id, type, ts, experiment, variant, revenue, copy_source, copy_fallback_reason, event_id FROM events
        WHERE user_id IN (
            SELECT DISTINCT s.user_id FROM abctl_staging s
            WHERE s.type = \(EventType.exposure.rawValue) OR EXISTS (SELECT 1 FROM facts f WHERE f.user_id = s.user_id))
        ORDER BY user_id
        """

    static let factColumns = """
        user_id, experiment, variant, first_exposure_ts, trial_start_ts, first_paid_ts, first_converted_ts, \
        first_cancel_ts, refunded_ts, net_revenue, copy_source, copy_fallback_reason, revenue_entries, crossed_over
        """

    private struct Key: Hashable {
        var user: String
        var event: String
    }

    /// Stores `batches` in one transaction on `c` and returns each batch's counts. A repeat of
    /// an event already stored, or already earlier in the same call, is a duplicate of the first.
    static func run(_ batches: [[Event]], on c: Connection) throws -> [AppendResult] {
        var firstBatch: [Key: Int] = [:]
        var offered = [Int](repeating: 0, count: batches.count)
        var rows = CopyBuffer(reserve: batches.reduce(0) { $0 + $1.count } * 96)
        for (index, events) in batches.enumerated() {
            offered[index] = events.count
            for e in events {
                let key = Key(user: e.userID, event: e.id)
                guard firstBatch[key] == nil else { continue }
                firstBatch[key] = index
                rows.add(e.userID); rows.add(e.id); rows.add(e.type.rawValue); rows.add(e.timestamp.microseconds)
                rows.add(e.experiment); rows.add(e.variant); rows.add(e.revenue); rows.add(e.currency)
                rows.add(e.productID); rows.add(e.copySource?.rawValue); rows.add(e.copyText); rows.add(e.copyFallbackReason)
                rows.endRow()
            }
        }
        if rows.isEmpty { return offered.map { AppendResult(stored: 0, duplicates: $0) } }

        try c.execute("BEGIN", context: "append events")
        do {
            try c.copyIn("COPY abctl_staging (\(columns)) FROM STDIN", data: rows.bytes, context: "append events (copy)")
            if Set(firstBatch.keys.lazy.map(\.user)).count <= maxUserLocks {
                try c.executePrepared("lock_buckets_shared", lockBucketsShared, [], context: "append events (lock users)")
                try c.executePrepared("lock_users", lockUsers, [], context: "append events (lock users)")
            } else {
                try c.executePrepared("lock_buckets", lockBucketsExclusive, [], context: "append events (lock users)")
            }
            var stored = [Int](repeating: 0, count: batches.count)
            if batches.count == 1 {
                stored[0] = try c.executePrepared("insert_events", insert, [], context: "append events (insert)").affectedRows
            } else {
                let keys = try c.executePrepared("insert_events_returning", insert + " RETURNING user_id, event_id", [],
                                                 context: "append events (insert)")
                for row in 0..<keys.count {
                    if let index = firstBatch[Key(user: keys.text(row, 0), event: keys.text(row, 1))] { stored[index] += 1 }
                }
            }
            try refreshFacts(on: c)
            try c.execute("COMMIT", context: "append events (commit)")
            return zip(offered, stored).map { AppendResult(stored: $1, duplicates: $0 - $1) }
        } catch {
            if c.isHealthy { _ = try? c.execute("ROLLBACK", context: "append events (rollback)") }
            throw error
        }
    }

    /// Recomputes, with `FactsBuilder`, the facts of every user in the staged batch who has any.
    private static func refreshFacts(on c: Connection) throws {
        let events = try c.executePrepared("select_user_events", selectEvents, [], context: "append events (read users' events)")
        guard events.count > 0 else { return }
        var users: [String] = []
        var facts = CopyBuffer(reserve: events.count * 64)
        var sources: [FactsBuilder.Source] = []
        var row = 0
        while row < events.count {
            let user = events.text(row, 0)
            sources.removeAll(keepingCapacity: true)
            while row < events.count, events.text(row, 0) == user {
                let type = EventType(rawValue: Int(events.int64(row, 1))) ?? .exposure
                sources.append(FactsBuilder.Source(
                    type: type, ts: events.int64(row, 2), experiment: events.optionalText(row, 3),
                    variant: events.optionalText(row, 4), revenueContribution: type.revenueContribution(events.optionalDouble(row, 5)),
                    copySource: events.optionalText(row, 6).flatMap { .init(rawValue: $0) },
                    copyFallbackReason: events.optionalText(row, 7), eventID: events.text(row, 8)))
                row += 1
            }
            users.append(user)
            for f in FactsBuilder.facts(userID: user, events: sources) {
                facts.add(f.userID); facts.add(f.experiment); facts.add(f.variant); facts.add(f.firstExposure.microseconds)
                facts.add(f.trialStart?.microseconds); facts.add(f.firstPaid?.microseconds); facts.add(f.firstConverted?.microseconds)
                facts.add(f.firstCancel?.microseconds); facts.add(f.refundedAt?.microseconds); facts.add(f.netRevenue)
                facts.add(f.copySource?.rawValue); facts.add(f.copyFallbackReason)
                facts.add(bytes: RevenueEntry.encode(f.revenueEntries)); facts.add(f.crossedOver)
                facts.endRow()
            }
        }
        try c.executePrepared("delete_facts", "DELETE FROM facts WHERE user_id = ANY($1::text[])", [arrayLiteral(users)],
                              context: "append events (replace facts)")
        if !facts.isEmpty {
            try c.copyIn("COPY facts (\(factColumns)) FROM STDIN", data: facts.bytes, context: "append events (write facts)")
        }
    }
}
