import CSQLite

/// One SQLite connection with a cache of prepared statements.
///
/// `@unchecked Sendable` is safe because a connection is only ever used by one thread at a
/// time: the writer's connection only on the writer's serial queue, each read connection
/// only while checked out of `ReaderPool` or `ExposureLookup` (whose mutexes hand it to one user at a time).
/// The connection is opened with `SQLITE_OPEN_NOMUTEX`, relying on that discipline.
final class Connection: @unchecked Sendable {
    private let handle: OpaquePointer
    let path: String
    private var cache: [String: Statement] = [:]

    /// Process-wide settings, applied once before SQLite initialises (later calls are refused).
    private static let configured: Void = { _ = abctl_sqlite3_disable_memory_statistics() }()

    init(path: String, readOnly: Bool) throws {
        Self.configured
        var db: OpaquePointer?
        let flags = (readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)) | SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            if let db { sqlite3_close_v2(db) }
            throw StoreError(code: rc, message: message, context: "open", path: path)
        }
        self.handle = db
        self.path = path
        sqlite3_extended_result_codes(db, 1)
        // Wait for a competing writer (another process) instead of failing at once.
        try check(sqlite3_busy_timeout(db, 10_000), "busy_timeout")
    }

    deinit {
        cache.removeAll()
        sqlite3_close_v2(handle)
    }

    /// SQLite's mapping of this database's WAL index (see `WALIndexWatch`); valid while this stays open.
    func walIndexMapping() -> UnsafeRawPointer? {
        abctl_wal_index_map(handle)
    }

    /// The one place every C result code is checked; throws with context, code, message and SQL.
    @discardableResult
    func check(_ rc: Int32, _ context: @autoclosure () -> String, sql: String? = nil, accept: Int32 = SQLITE_OK) throws -> Int32 {
        if rc == SQLITE_OK || rc == accept { return rc }
        throw StoreError(code: rc & 0xff, message: String(cString: sqlite3_errmsg(handle)), context: context(), sql: sql, path: path)
    }

    /// Runs one or more statements without results.
    func execute(_ sql: String) throws {
        var errmsg: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &errmsg)
        if rc != SQLITE_OK {
            let message = errmsg.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(errmsg)
            throw StoreError(code: rc & 0xff, message: message, context: "execute", sql: sql, path: path)
        }
    }

    /// A prepared statement, reused across calls (reset and unbound before it is handed out).
    func cached(_ sql: String) throws -> Statement {
        if let statement = cache[sql] {
            try statement.reset()
            return statement
        }
        let statement = try prepare(sql)
        cache[sql] = statement
        return statement
    }

    /// A fresh prepared statement, not cached.
    func prepare(_ sql: String) throws -> Statement {
        var stmt: OpaquePointer?
        try check(sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &stmt, nil), "prepare", sql: sql)
        guard let stmt else { throw StoreError(message: "empty statement", context: "prepare", sql: sql, path: path) }
        return Statement(stmt, connection: self, sql: sql)
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    var changes: Int { Int(sqlite3_changes(handle)) }

    /// The first column of the first row, as an integer.
    func scalarInt(_ sql: String) throws -> Int64? {
        let s = try cached(sql)
        defer { s.finish() }
        return try s.step() ? s.optionalInt64(0) : nil
    }

    /// The first column of the first row, as text.
    func scalarText(_ sql: String) throws -> String? {
        let s = try cached(sql)
        defer { s.finish() }
        return try s.step() ? s.optionalText(0) : nil
    }

    /// Runs `body` inside `BEGIN IMMEDIATE … COMMIT`, rolling back if it throws.
    func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let value = try body()
            try execute("COMMIT")
            return value
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }
}
