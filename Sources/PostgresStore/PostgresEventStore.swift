import Events
import ExperimentDefinitions

/// The event store in PostgreSQL, for several `abctl serve` nodes on one database (docs/Stores.md):
/// events idempotent on (user_id, event_id), per-(user, experiment) facts kept exact under
/// concurrent writers, sticky lookups read from the database, migrations run once.
///
/// Safe to share across threads. Opening connects, migrates (or refuses a newer schema) and
/// fails with a `PostgresError` naming host and database, never the password.
public final class PostgresEventStore: EventStore {
    public struct Options: Sendable {
        /// Write transactions run at once, each on its own connection.
        public var writers: Int
        /// Idle read connections kept (sticky lookups, reports, the copy cache).
        public var maxIdleReaders: Int
        /// Queued batches are combined into one transaction up to about this many events.
        public var maxEventsPerTransaction: Int

        public init(writers: Int = 4, maxIdleReaders: Int = 8, maxEventsPerTransaction: Int = 20_000) {
            self.writers = writers
            self.maxIdleReaders = maxIdleReaders
            self.maxEventsPerTransaction = maxEventsPerTransaction
        }
    }

    /// The schema version this binary writes.
    public static var schemaVersion: Int { PostgresSchema.latestVersion }

    public let target: ConnectionTarget
    let readers: ConnectionPool
    let writer: PostgresWriter
    /// Shared by every pool of this store: a connection found dead retires all of them.
    let generation: ServerGeneration

    public init(url: String, options: Options = Options()) throws {
        target = try ConnectionTarget(url: url)
        let first = try Connection(target: target)
        try PostgresSchema.migrate(first)
        let generation = ServerGeneration()
        self.generation = generation
        readers = ConnectionPool(target: target, maxIdle: options.maxIdleReaders, generation: generation)
        writer = PostgresWriter(target: target, generation: generation, workers: options.writers, maxEventsPerTransaction: options.maxEventsPerTransaction)
    }

    deinit { writer.close() }

    // MARK: Writing

    /// Stores `events`; `completion` runs on a writer thread after the commit (or failure).
    /// All of a call's events are stored, or none; a repeat of (user_id, event_id), stored
    /// before or earlier in the call, is counted as a duplicate.
    public func submit(_ events: [Event], completion: @escaping @Sendable (Result<AppendResult, any Error>) -> Void) {
        writer.submit(events, completion: completion)
    }

    /// For bulk loads: like `submit`, with `consumed` called as soon as a writer has taken the
    /// batch, so a producer can bound what it keeps in memory. Every transaction commits on its
    /// own (several run at once), so `commitEvery` only exists to match the SQLite store.
    public func submitBulk(_ events: [Event], commitEvery: Int, consumed: @escaping @Sendable () -> Void,
                           completion: @escaping @Sendable (Result<AppendResult, any Error>) -> Void) {
        writer.submit(events, consumed: consumed, completion: completion)
    }

    /// Waits until every batch submitted so far is committed or failed.
    public func flush() throws { writer.waitIdle() }

    /// Transactions committed by this store object so far.
    public var transactionsCommitted: Int { writer.transactionsCommitted }

    /// A sticky reader on this store's connections (see `PostgresStickyReader`).
    public func makeStickyReader(maxIdle: Int) throws -> any StickyReader {
        PostgresStickyReader(pool: ConnectionPool(target: target, maxIdle: maxIdle, generation: generation))
    }

    /// Waits for queued appends, then refuses new ones and closes the connections.
    public func close() {
        writer.close()
        readers.drain()
    }
}
