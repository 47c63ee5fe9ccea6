import Events
import Dispatch

/// The embedded store (SQLite): events with `event_id` idempotency, per-(experiment, user)
/// facts kept current in the same transaction, one group-committing writer, parallel readers.
///
/// Safe to share across threads and tasks. Opening creates the file if needed, switches it to
/// WAL and migrates it; a database from a newer abctl is refused (`StoreError.Kind.schemaTooNew`).
public final class SQLiteEventStore: EventStore {
    /// How hard a commit waits for the disk before it is acknowledged.
    public enum Durability: String, Sendable {
        /// `synchronous=FULL`: the WAL is synced at every commit, so an acknowledged batch
        /// survives power loss as well as a crash. The default.
        case full
        /// `synchronous=NORMAL`: survives a process crash, but the last commits may be lost on
        /// power loss. Not for `POST /v1/events`, whose 200 promises durability.
        case normal
    }

    public struct Options: Sendable {
        public var durability: Durability
        /// Idle read connections kept open.
        public var maxIdleReaders: Int
        /// Group commit combines queued batches into one transaction up to about this many events.
        public var maxEventsPerTransaction: Int
        /// The writer's page cache. A fixed bound, so memory stays flat however large the
        /// database grows; larger values speed up bulk loads into large databases.
        public var pageCacheMiB: Int
        /// A transaction of at least this many events (and every bulk one) has its facts
        /// computed on another thread while the writer inserts (`SnapshotFacts`); smaller ones
        /// refresh facts inline, which costs no thread hand-off.
        public var factsBesideMinimumEvents: Int

        public init(durability: Durability = .full, maxIdleReaders: Int = 4, maxEventsPerTransaction: Int = 50_000,
                    pageCacheMiB: Int = 64, factsBesideMinimumEvents: Int = 20_000) {
            self.durability = durability
            self.maxIdleReaders = maxIdleReaders
            self.maxEventsPerTransaction = maxEventsPerTransaction
            self.pageCacheMiB = pageCacheMiB
            self.factsBesideMinimumEvents = factsBesideMinimumEvents
        }
    }

    /// The schema version this binary writes.
    public static var schemaVersion: Int { Schema.latestVersion }

    public let path: String
    let writer: GroupCommitWriter
    let readers: ReaderPool

    public init(path: String, options: Options = Options()) throws {
        self.path = path
        let connection = try Connection(path: path, readOnly: false)
        try connection.execute("PRAGMA journal_mode = WAL")
        let mode = try connection.scalarText("PRAGMA journal_mode")
        guard mode?.lowercased() == "wal" else {
            throw StoreError(message: "could not switch to WAL (journal_mode is \(mode ?? "unknown"))", context: "open", path: path)
        }
        try connection.execute("PRAGMA synchronous = \(options.durability == .full ? "FULL" : "NORMAL")")
        try connection.execute("PRAGMA cache_size = -\(max(1, options.pageCacheMiB) * 1024)")
        try connection.execute("PRAGMA temp_store = MEMORY")
        try Schema.migrate(connection)
        readers = ReaderPool(path: path, maxIdle: options.maxIdleReaders)
        writer = GroupCommitWriter(connection: connection, path: path, readers: readers, maxEventsPerTransaction: options.maxEventsPerTransaction,
                                   factsBesideMinimum: options.factsBesideMinimumEvents)
    }

    deinit { writer.close() }

    // MARK: Writing

    /// `EventWriter.submit`: `completion` is called on the writer's queue after the commit.
    public func submit(_ events: [Event], completion: @escaping @Sendable (Result<AppendResult, any Error>) -> Void) {
        writer.submit(events, completion: completion)
    }

    /// For bulk loads: appends `events` to a transaction that stays open until at least
    /// `commitEvery` events are uncommitted (or a regular append, `flush` or `close` commits it).
    /// Far fewer commits make a large load much faster; nothing is acknowledged early:
    /// `completion` still runs after the commit. `consumed` runs as soon as the writer has
    /// taken the batch, so a producer can bound how many batches it keeps in memory.
    /// While the transaction is open, other processes cannot write to the database.
    public func submitBulk(_ events: [Event], commitEvery: Int, consumed: @escaping @Sendable () -> Void,
                           completion: @escaping @Sendable (Result<AppendResult, any Error>) -> Void) {
        writer.submit(events, commitEvery: commitEvery, consumed: consumed, completion: completion)
    }

    /// Transactions committed by this store object so far (group commit makes it smaller
    /// than the number of appends).
    public var transactionsCommitted: Int { writer.transactionsCommitted }

    /// Waits for queued appends, then refuses new ones.
    public func close() { writer.close() }

    /// Sticky reads over their own connections (see `ExposureLookup`).
    public func makeStickyReader(maxIdle: Int) throws -> any StickyReader {
        try ExposureLookup(store: self, maxIdle: maxIdle)
    }
}
