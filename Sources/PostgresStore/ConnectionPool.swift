import Synchronization

/// Idle connections to one database, handed to one caller at a time.
///
/// A connection that fails is dropped, not returned: the next caller opens a fresh one, so the
/// pool reconnects by itself once the server is back, without a timer.
final class ConnectionPool: Sendable {
    let target: ConnectionTarget
    private let idle = Mutex<[Connection]>([])
    private let maxIdle: Int
    /// Runs once on each new connection (temporary tables, settings).
    private let setUp: @Sendable (Connection) throws -> Void

    init(target: ConnectionTarget, maxIdle: Int, setUp: @escaping @Sendable (Connection) throws -> Void = { _ in }) {
        self.target = target
        self.maxIdle = maxIdle
        self.setUp = setUp
    }

    func withConnection<T>(_ body: (Connection) throws -> T) throws -> T {
        let connection = try idle.withLock { $0.popLast() } ?? open()
        do {
            let value = try body(connection)
            release(connection)
            return value
        } catch {
            if connection.isHealthy && !connection.inTransaction { release(connection) }
            throw error
        }
    }

    /// Runs `body` inside BEGIN … COMMIT, rolling back when it throws.
    func transaction<T>(context: String, _ body: (Connection) throws -> T) throws -> T {
        try withConnection { c in
            try c.execute("BEGIN", context: context)
            do {
                let value = try body(c)
                try c.execute("COMMIT", context: context)
                return value
            } catch {
                if c.isHealthy { _ = try? c.execute("ROLLBACK", context: context) }
                throw error
            }
        }
    }

    private func open() throws -> Connection {
        let connection = try Connection(target: target)
        try setUp(connection)
        return connection
    }

    private func release(_ connection: Connection) {
        idle.withLock { if $0.count < maxIdle { $0.append(connection) } }
    }

    /// Closes every idle connection.
    func drain() { idle.withLock { $0.removeAll() } }
}
