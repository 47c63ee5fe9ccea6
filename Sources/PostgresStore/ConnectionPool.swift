import Synchronization

/// Idle connections to one database, handed to one caller at a time.
///
/// A connection that fails is dropped, not returned: the next caller opens a fresh one, so the
/// pool reconnects by itself once the server is back, without a timer.
///
/// A server that restarted while connections sat idle has closed all of them, and each still
/// looks open until it is used. So the first one found dead (a statement fails and libpq reports
/// `CONNECTION_BAD`) retires its whole generation, in every pool of the store that shares
/// `generation` (readers, sticky lookups, the event writer): none of them is handed out again.
/// And when that connection had come from the pool and failed before any statement on it
/// succeeded, nothing of the work was done, so it runs once more on a fresh connection: a caller
/// sees a restart only if the server is not back yet.
final class ConnectionPool: Sendable {
    let target: ConnectionTarget
    /// The generation of the connections to this server, shared by all of a store's pools.
    let generation: ServerGeneration
    private let idle = Mutex<[Connection]>([])
    private let maxIdle: Int
    /// Runs once on each new connection (temporary tables, settings).
    private let setUp: @Sendable (Connection) throws -> Void

    init(target: ConnectionTarget, maxIdle: Int, generation: ServerGeneration = ServerGeneration(),
         setUp: @escaping @Sendable (Connection) throws -> Void = { _ in }) {
        self.target = target
        self.maxIdle = maxIdle
        self.generation = generation
        self.setUp = setUp
    }

    /// Runs `body` on a connection; once more on a fresh one when a pooled connection turns out
    /// to be dead before `body` got anything done on it (see the type's comment).
    func withConnection<T>(_ body: (Connection) throws -> T) throws -> T {
        let (connection, reused) = try take()
        let succeededBefore = connection.succeeded
        do {
            return try use(connection, body)
        } catch {
            guard !connection.isHealthy else { throw error }
            generation.retire(connection.generation)
            guard reused && connection.succeeded == succeededBefore else { throw error }
            return try use(open(), body)
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

    private func use<T>(_ connection: Connection, _ body: (Connection) throws -> T) throws -> T {
        do {
            let value = try body(connection)
            release(connection)
            return value
        } catch {
            if connection.isHealthy && !connection.inTransaction { release(connection) }
            throw error
        }
    }

    /// An idle connection of the current generation (and whether it was one), or a new one.
    private func take() throws -> (Connection, reused: Bool) {
        let current = generation.current
        // Retired connections leave the lock with the tuple and are closed outside it.
        let pooled = idle.withLock { list -> (Connection?, retired: [Connection]) in
            let retired = list.filter { $0.generation < current }
            if !retired.isEmpty { list.removeAll { $0.generation < current } }
            return (list.popLast(), retired)
        }.0
        if let pooled { return (pooled, true) }
        return (try open(), false)
    }

    private func open() throws -> Connection {
        // Read before connecting: a connection opened while its generation is being retired is
        // retired with it (one needless reconnect at worst, never a dead connection kept).
        let generation = self.generation.current
        let connection = try Connection(target: target)
        connection.generation = generation
        try setUp(connection)
        return connection
    }

    private func release(_ connection: Connection) {
        guard connection.generation >= generation.current else { return }
        idle.withLock { if $0.count < maxIdle { $0.append(connection) } }
    }

    /// Closes every idle connection.
    func drain() { idle.withLock { $0.removeAll() } }
}

/// The generation of a store's connections to its server: a connection found dead retires every
/// connection opened in its generation (see `ConnectionPool`).
final class ServerGeneration: Sendable {
    private let value = Atomic<Int>(0)

    var current: Int { value.load(ordering: .acquiring) }

    /// Retires `generation` if it is still the current one (of several connections found dead at
    /// once, the first retires their generation; the others find it retired already).
    func retire(_ generation: Int) {
        _ = value.compareExchange(expected: generation, desired: generation + 1, ordering: .acquiringAndReleasing)
    }
}
