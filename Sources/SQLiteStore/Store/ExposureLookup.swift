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
///
/// Before any read, the writer's `StickyRecordFilter` answers for the pairs it is sure were
/// never exposed, while the WAL index shows the stamp it was published at: most users asking
/// for a paywall have no exposure yet, and they cost no read at all.
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
    /// Dispatch sources are thread-safe; the type is just not marked `Sendable`.
    nonisolated(unsafe) private let sweeper: DispatchSourceTimer
    /// Kept current by the store's writer (the pairs that may have a record).
    private let records: StickyRecordFilter
    private let writer: GroupCommitWriter
    /// When a reader last asked the writer to check the filter again (coarse seconds × 1000).
    private let lastRecheck = Atomic<Int64>(0)
    /// Lookups answered by the filter without a read, and those that read (for tests and benchmarks).
    private let skipped = Atomic<Int>(0)
    private let read = Atomic<Int>(0)

    /// `maxIdle` connections are kept open (one per server thread avoids opening any per call).
    public init(store: SQLiteEventStore, maxIdle: Int) throws {
        path = store.path
        self.maxIdle = maxIdle
        // A connection of the watch's own, kept open by it: a read maps the WAL index.
        let anchor = try Connection(path: path, readOnly: false)
        try anchor.execute("PRAGMA query_only = 1; SELECT count(*) FROM sqlite_master")
        watch = WALIndexWatch(connection: anchor)
        records = store.writer.stickyRecords
        writer = store.writer
        sweeper = DispatchSource.makeTimerSource(queue: .global(qos: .utility))
        sweeper.schedule(deadline: .now() + Self.idleRelease, repeating: Self.idleRelease)
        sweeper.setEventHandler { [weak self] in self?.releaseIdle() }
        sweeper.resume()
        writer.keepStickyRecords()
    }

    deinit { sweeper.cancel() }

    /// The variant `userID` was first exposed to in `experiment`, or nil when never exposed.
    public func exposedVariant(experiment: String, userID: UserID) throws -> String? {
        // The filter's certain "never" without the arrays of the general form (most requests).
        // The stamp first, then the view: the order `exposedVariants` reads them in.
        if let stamp = watch?.stamp() {
            let view = records.view
            if let exactAt = view.exactAt, stamp == exactAt,
               !view.mightContain(StickyRecordFilter.PairHash(experiment: experiment, userID: userID)) {
                skipped.add(1, ordering: .relaxed)
                return nil
            }
        }
        return try exposedVariants(experiments: [experiment], userID: userID)[0]
    }

    /// One answer per experiment; the filter's certain "never" first, one connection for the rest.
    public func exposedVariants(experiments: [String], userID: UserID) throws -> [String?] {
        try lookup(experiments: experiments, userID: userID, link: false).variants
    }

    /// The same, and whether `userID` is one of a person's several ids (read only when some
    /// experiment has a record: the filter holds each of a person's ids' pairs).
    public func exposedVariantsAndLink(experiments: [String], userID: UserID) throws -> StickyAnswers {
        try lookup(experiments: experiments, userID: userID, link: true)
    }

    private func lookup(experiments: [String], userID: UserID, link: Bool) throws -> StickyAnswers {
        var answers = [String?](repeating: nil, count: experiments.count)
        if experiments.isEmpty { return StickyAnswers(variants: answers, linked: false) }
        let stamp = watch?.stamp()
        var toRead = experiments.indices.count
        var maybe = [Bool](repeating: true, count: experiments.count)
        let view = records.view
        if let stamp, let exactAt = view.exactAt, stamp == exactAt {
            toRead = 0
            for (i, experiment) in experiments.enumerated() {
                maybe[i] = view.mightContain(StickyRecordFilter.PairHash(experiment: experiment, userID: userID))
                if maybe[i] { toRead += 1 }
            }
            skipped.add(experiments.count - toRead, ordering: .relaxed)
            if toRead == 0 { return StickyAnswers(variants: answers, linked: false) }
        } else if watch != nil {
            recheckFilter()
        }
        read.add(toRead, ordering: .relaxed)
        // On an error the reader is dropped: closing its connection ends any open transaction.
        let reader = try idle.withLock { $0.popLast() } ?? Reader(path: path)
        try reader.refresh(stamp, watching: watch != nil)
        for (i, experiment) in experiments.enumerated() where maybe[i] {
            answers[i] = try reader.variant(experiment: experiment, userID: userID)
        }
        let linked = try link && answers.contains { $0 != nil } && reader.isLinked(userID)
        reader.lastUsed = Self.now()
        idle.withLock { if $0.count < maxIdle { $0.append(reader) } }
        return StickyAnswers(variants: answers, linked: linked)
    }

    /// Asks the writer to check the filter again, at most every 20 ms: the WAL index moved past
    /// the published stamp (a commit the writer is about to publish, or another process's).
    private func recheckFilter() {
        let now = Int64(Self.now() * 1000)
        let last = lastRecheck.load(ordering: .relaxed)
        guard now - last >= 20, lastRecheck.compareExchange(expected: last, desired: now, ordering: .relaxed).exchanged else { return }
        writer.recheckStickyRecords()
    }

    /// Pairs the filter answered without a read, and pairs read from the store, so far.
    public var lookupCounts: (skipped: Int, read: Int) { (skipped.load(ordering: .relaxed), read.load(ordering: .relaxed)) }

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

        /// Whether `userID` is one of a person's several ids.
        func isLinked(_ userID: UserID) throws -> Bool {
            if linkedSelect == nil { linkedSelect = try connection.prepare("SELECT 1 FROM people WHERE user_id = ?1") }
            let s = linkedSelect!
            defer { s.finish() }
            try s.bind(1, userID)
            return try s.step()
        }
        private var linkedSelect: Statement?

        private func select(_ experiment: String) throws -> Statement {
            if let known = selects.first(where: { $0.experiment == experiment }) { return known.statement }
            if selects.count >= 64 { selects.removeAll() }   // experiments come and go with reloads
            let statement = try connection.prepare("""
                SELECT variant FROM facts
                WHERE experiment = ?1 AND user_id = coalesce((SELECT person_id FROM people WHERE user_id = ?2), ?2)
                """)
            try statement.bind(1, experiment)
            selects.append((experiment, statement))
            return statement
        }
    }
}
