import Synchronization

/// The variant a user was first exposed to, read on the assign path (sticky assignment).
///
/// `ReaderPool` reads wrap their statements in `BEGIN … COMMIT` (two more statements, each
/// parsed by `sqlite3_exec`) for a snapshot across statements. One `SELECT` is already atomic,
/// so this lookup runs it alone, in SQLite's implicit read transaction, on connections of its
/// own: the same answer for a fraction of the work on every assign call.
public final class ExposureLookup: Sendable {
    private let path: String
    private let idle = Mutex<[Connection]>([])
    private let maxIdle: Int

    /// `maxIdle` connections are kept open (one per server thread avoids opening any per call).
    public init(store: EventStore, maxIdle: Int) {
        self.path = store.path
        self.maxIdle = maxIdle
    }

    /// The variant `userID` was first exposed to in `experiment`, or nil when never exposed.
    public func exposedVariant(experiment: String, userID: String) throws -> String? {
        let connection = try idle.withLock { $0.popLast() } ?? open()
        defer { idle.withLock { if $0.count < maxIdle { $0.append(connection) } } }
        let s = try connection.cached("SELECT variant FROM facts WHERE experiment = ?1 AND user_id = ?2")
        defer { s.finish() }
        try s.bind(1, experiment)
        try s.bind(2, userID)
        return try s.step() ? s.text(0) : nil
    }

    private func open() throws -> Connection {
        let connection = try Connection(path: path, readOnly: false)
        try connection.execute("PRAGMA query_only = 1")
        return connection
    }
}
