import Events

/// The sticky record on the assign path, read from the database on every call.
///
/// An exposure another node acknowledged a moment ago must count, so a node-local cache or
/// filter could give a wrong answer: each lookup is one indexed read on the facts key
/// (user_id, experiment), a prepared statement on a pooled connection, one round trip.
final class PostgresStickyReader: StickyReader {
    private let pool: ConnectionPool

    init(pool: ConnectionPool) { self.pool = pool }

    func exposedVariant(experiment: String, userID: String) throws -> String? {
        try pool.withConnection { c in
            let rows = try c.executePrepared("sticky", "SELECT variant FROM facts WHERE user_id = $1 AND experiment = $2",
                                             [userID, experiment], context: "sticky lookup")
            return rows.count > 0 ? rows.text(0, 0) : nil
        }
    }
}

extension PostgresEventStore {
    /// The variant `userID` was first exposed to in `experiment`, or nil when never exposed.
    public func exposedVariant(experiment: String, userID: String) throws -> String? {
        try PostgresStickyReader(pool: readers).exposedVariant(experiment: experiment, userID: userID)
    }
}
