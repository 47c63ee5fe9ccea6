import Synchronization

/// Read connections, each lent to one caller at a time, so reads run in parallel with each
/// other and with the writer (WAL gives every read a consistent snapshot).
final class ReaderPool: Sendable {
    private let path: String
    private let idle = Mutex<[Connection]>([])
    private let maxIdle: Int

    init(path: String, maxIdle: Int) {
        self.path = path
        self.maxIdle = maxIdle
    }

    /// `body` in one read transaction: one snapshot, even across several statements.
    func read<T>(_ body: (Connection) throws -> T) throws -> T {
        let connection = try idle.withLock { $0.popLast() } ?? open()
        defer {
            idle.withLock { if $0.count < maxIdle { $0.append(connection) } }
        }
        try connection.execute("BEGIN")
        defer { try? connection.execute("COMMIT") }
        return try body(connection)
    }

    private func open() throws -> Connection {
        let connection = try Connection(path: path, readOnly: false)
        try connection.execute("PRAGMA query_only = 1")
        return connection
    }
}
