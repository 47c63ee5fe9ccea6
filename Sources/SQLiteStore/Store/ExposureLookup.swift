import Events
import ExperimentDefinitions
import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The variant a user was first exposed to, read on the assign path (sticky assignment).
///
/// A read transaction costs more than the lookup itself: beginning and ending one takes a lock
/// on the WAL index (an `fcntl` under a mutex every connection of the process shares, which
/// the server's threads then queue on). So each connection keeps its read transaction open
/// between lookups for as long as that cannot change an answer: while SQLite's WAL index shows
/// no commit and no checkpoint since the transaction began (`WALIndexWatch`, read without a
/// lock). Any commit, from any process, ends it before the next lookup, so answers are exactly
/// those of a fresh transaction.
///
/// An open read transaction keeps a checkpoint from finishing and the WAL from starting over,
/// so none is kept while the WAL holds more than `keepLimitFrames` frames, and a timer ends
/// those of connections idle for `idleRelease`.
public final class ExposureLookup: StickyReader {
    /// Past this many WAL frames (4 MiB at 4 KiB pages; the writer checkpoints at 1000), lookups
    /// run in transactions of their own again, so the WAL can be reset.
    static let keepLimitFrames: UInt32 = 1_000
    static let idleRelease = 0.025

    private let path: String
    private let maxIdle: Int
    private let idle = Mutex<[Reader]>([])
    /// nil without a WAL index to watch: every lookup then runs in a transaction of its own.
    private let watch: WALIndexWatch?
    /// Keeps SQLite's mapping of the `-shm` file open for as long as `watch` reads it.
    private let anchor: Connection
    /// Dispatch sources are thread-safe; the type is just not marked `Sendable`.
    nonisolated(unsafe) private let sweeper: DispatchSourceTimer

    /// `maxIdle` connections are kept open (one per server thread avoids opening any per call).
    public init(store: SQLiteEventStore, maxIdle: Int) throws {
        path = store.path
        self.maxIdle = maxIdle
        anchor = try Connection(path: path, readOnly: false)
        try anchor.execute("PRAGMA query_only = 1; SELECT count(*) FROM sqlite_master")   // maps the WAL index
        watch = WALIndexWatch(databasePath: path)
        sweeper = DispatchSource.makeTimerSource(queue: .global(qos: .utility))
        sweeper.schedule(deadline: .now() + Self.idleRelease, repeating: Self.idleRelease)
        sweeper.setEventHandler { [weak self] in self?.releaseIdle() }
        sweeper.resume()
    }

    deinit { sweeper.cancel() }

    /// The variant `userID` was first exposed to in `experiment`, or nil when never exposed.
    public func exposedVariant(experiment: String, userID: UserID) throws -> String? {
        // On an error the reader is dropped: closing its connection ends any open transaction.
        let reader = try idle.withLock { $0.popLast() } ?? Reader(path: path)
        try reader.refresh(watch?.stamp(), watching: watch != nil)
        let variant = try reader.variant(experiment: experiment, userID: userID)
        reader.lastUsed = Self.now()
        idle.withLock { if $0.count < maxIdle { $0.append(reader) } }
        return variant
    }

    /// Ends the transactions of connections idle for `idleRelease` or more.
    func releaseIdle() {
        let now = Self.now()
        idle.withLock { readers in
            for reader in readers where reader.keeps && now - reader.lastUsed >= Self.idleRelease {
                reader.release()
            }
        }
    }

    /// Whether any idle connection keeps a read transaction open (for tests).
    var keepsAnyTransaction: Bool { idle.withLock { $0.contains { $0.keeps } } }

    /// A coarse clock (a few milliseconds' resolution, without reading the time stamp counter):
    /// it only times 25 ms of idleness, and it is read on every lookup.
    private static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC_COARSE, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// One read connection and the snapshot its open transaction holds, if any. Used by one
    /// thread at a time: whoever took it from `idle`, or the sweeper under `idle`'s lock.
    private final class Reader: @unchecked Sendable {
        let connection: Connection
        /// One statement per experiment, with the experiment bound once (bindings outlive a
        /// reset): a bind copies its text, and the experiment is the same on every lookup.
        private var selects: [(experiment: String, statement: Statement)] = []
        private let begin: Statement
        private let commit: Statement
        /// The WAL index as it was just before the open transaction began; nil when none is open.
        private var kept: WALStamp?
        var lastUsed = 0.0

        init(path: String) throws {
            connection = try Connection(path: path, readOnly: false)
            try connection.execute("PRAGMA query_only = 1")
            begin = try connection.prepare("BEGIN")
            commit = try connection.prepare("COMMIT")
        }

        var keeps: Bool { kept != nil }

        /// Ends a kept transaction that could miss a commit, and keeps the next one when allowed.
        func refresh(_ current: WALStamp?, watching: Bool) throws {
            if let kept {
                if kept == current { return }
                release()
            }
            guard watching, let current, current.frames <= ExposureLookup.keepLimitFrames else { return }
            // BEGIN is deferred: the snapshot is taken by the first SELECT, after `current` was
            // read, so it holds at least everything `current` describes.
            try begin.run()
            begin.finish()
            kept = current
        }

        func release() {
            guard kept != nil else { return }
            kept = nil
            _ = try? commit.run()
            commit.finish()
        }

        func variant(experiment: String, userID: UserID) throws -> String? {
            let select = try self.select(experiment)
            defer { select.finish() }
            try select.bind(2, userID)
            return try select.step() ? select.text(0) : nil
        }

        private func select(_ experiment: String) throws -> Statement {
            if let known = selects.first(where: { $0.experiment == experiment }) { return known.statement }
            if selects.count >= 64 { selects.removeAll() }   // experiments come and go with reloads
            let statement = try connection.prepare("SELECT variant FROM facts WHERE experiment = ?1 AND user_id = ?2")
            try statement.bind(1, experiment)
            selects.append((experiment, statement))
            return statement
        }
    }
}
