/// The variant a user was first exposed to, read on the assign path (sticky assignment).
///
/// `ReaderPool.read` wraps its statements in `BEGIN … COMMIT` (two more statements, each parsed
/// by `sqlite3_exec`) for a snapshot across statements. One `SELECT` is already atomic, so this
/// lookup runs it alone, in SQLite's implicit read transaction, on connections of its own: the
/// same answer for a fraction of the work on every assign call.
public final class ExposureLookup: Sendable {
    private let connections: ReaderPool

    /// `maxIdle` connections are kept open (one per server thread avoids opening any per call).
    public init(store: EventStore, maxIdle: Int) {
        connections = ReaderPool(path: store.path, maxIdle: maxIdle)
    }

    /// The variant `userID` was first exposed to in `experiment`, or nil when never exposed.
    public func exposedVariant(experiment: String, userID: String) throws -> String? {
        try connections.borrow { connection in
            let s = try connection.cached("SELECT variant FROM facts WHERE experiment = ?1 AND user_id = ?2")
            defer { s.finish() }
            try s.bind(1, experiment)
            try s.bind(2, userID)
            return try s.step() ? s.text(0) : nil
        }
    }
}
