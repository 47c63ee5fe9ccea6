import Events

/// The sticky record on the assign path, read from the database on every call.
///
/// An exposure another node acknowledged a moment ago must count, so a node-local cache or
/// filter could give a wrong answer: every lookup reads the facts table (indexed by
/// (user_id, experiment)). A request's sticky experiments go in one lookup, and concurrent
/// requests' lookups share queries (`StickyQueryCoalescer`): one round trip answers many.
final class PostgresStickyReader: StickyReader {
    private let pool: ConnectionPool
    private let coalescer: StickyQueryCoalescer

    /// `maxInFlight` queries run at once (each on its own pooled connection); lookups that
    /// arrive meanwhile join the next one, up to `maxBatch` lookups per query.
    init(pool: ConnectionPool, maxInFlight: Int = 1, maxBatch: Int = 64) {
        self.pool = pool
        coalescer = StickyQueryCoalescer(maxInFlight: maxInFlight, maxBatch: maxBatch) { batch in
            try Self.query(batch, pool: pool)
        }
    }

    func exposedVariant(experiment: String, userID: String) throws -> String? {
        try exposedVariants(experiments: [experiment], userID: userID)[0]
    }

    func exposedVariants(experiments: [String], userID: String) throws -> [String?] {
        if experiments.isEmpty { return [] }
        // PostgreSQL text cannot hold NUL, so no stored record has one (events refuse it).
        if userID.utf8.contains(0) { return experiments.map { _ in nil } }
        return try coalescer.lookup(userID: userID, experiments: experiments)
    }

    /// One query for every lookup of `batch`: the facts rows of its users and experiments, of
    /// which each lookup keeps the pairs it asked for.
    private static func query(_ batch: [StickyQueryCoalescer.Lookup], pool: ConnectionPool) throws -> [[String?]] {
        var users = Set<String>(), experiments = Set<String>()
        for lookup in batch {
            users.insert(lookup.userID)
            for experiment in lookup.experiments where !experiment.utf8.contains(0) { experiments.insert(experiment) }
        }
        var found: [String: [String: String]] = [:]
        if !experiments.isEmpty {
            try pool.withConnection { c in
                let rows = try c.executePrepared(
                    "sticky", "SELECT user_id, experiment, variant FROM facts WHERE user_id = ANY($1::text[]) AND experiment = ANY($2::text[])",
                    [arrayLiteral(users), arrayLiteral(experiments)], context: "sticky lookup")
                for row in 0..<rows.count { found[rows.text(row, 0), default: [:]][rows.text(row, 1)] = rows.text(row, 2) }
            }
        }
        return batch.map { lookup in lookup.experiments.map { found[lookup.userID]?[$0] } }
    }
}

extension PostgresEventStore {
    /// The variant `userID` was first exposed to in `experiment`, or nil when never exposed.
    public func exposedVariant(experiment: String, userID: String) throws -> String? {
        try PostgresStickyReader(pool: readers).exposedVariant(experiment: experiment, userID: userID)
    }
}
