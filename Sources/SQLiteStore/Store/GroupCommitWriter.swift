import Events
import ExperimentDefinitions
import Dispatch
import Synchronization

/// The single writer: callers' batches queue up, and whatever has queued while the previous
/// transaction ran is committed together in one transaction (group commit). Each caller hears
/// back only after the transaction holding its batch has committed.
///
/// A transaction writes its events sorted by user and refreshes each touched user's facts once
/// per commit, in user order. A small one (a few requests of `POST /v1/events`) does it right
/// after that user's events, while their pages are still in the cache; a large or bulk one
/// (`abctl ingest`) has `SnapshotFacts` compute them on another thread while it inserts, then
/// upserts them. Sorted keys also touch each page of the (user_id, event_id) B-tree at most once per
/// transaction instead of in random order.
///
/// Bulk requests (`abctl ingest`) are held in memory until `commitEvery` events have gathered
/// (or a regular request, `flush` or `close` comes), then written in one such transaction, so a
/// large load commits a few times instead of once per batch. Their completions, too, wait for
/// the commit; `consumed` tells the producer early that the writer has taken the batch (at once
/// while less than a commit's worth is queued, so reading overlaps writing), bounding its memory
/// to about two commits' worth of events.
///
/// The transaction itself is `SQLiteWriteTransaction` (with its people step, `SQLitePeopleStep`),
/// the filters over facts `WriterFilters`; this type is the queue.
///
/// `@unchecked Sendable`: the connection, the transaction, the filters and the held events are
/// touched only on `queue`, a serial queue; the request list is behind a `Mutex`.
final class GroupCommitWriter: @unchecked Sendable {
    typealias Completion = @Sendable (Result<AppendResult, any Error>) -> Void

    struct Request {
        var events: [Event]
        /// nil: commit at the end of this drain. A number: the events may wait in memory until
        /// this many events are held.
        var commitEvery: Int?
        var consumed: (@Sendable () -> Void)?
        var completion: Completion
    }

    private let connection: Connection
    private let queue = DispatchQueue(label: "abctl.eventstore.writer")
    private static let onWriterQueue = DispatchSpecificKey<Bool>()
    private let pending = Mutex<[Request]>([])
    private let isClosed = Atomic<Bool>(false)
    /// A drain takes at least one request, then more while they fit under this many events.
    let maxEventsPerTransaction: Int
    /// The transaction each commit runs (events, facts, people), on `queue` only.
    private let transaction: SQLiteWriteTransaction

    /// Requests taken but not yet committed (bulk ones wait here), on `queue` only.
    private var held: [Request] = []
    private var heldEvents = 0

    /// Which users can have facts, and which pairs have a sticky record (`WriterFilters`), on `queue` only.
    private let filters: WriterFilters
    /// The (experiment, user) pairs with a sticky record, for the assign path (see `StickyRecordFilter`).
    var stickyRecords: StickyRecordFilter { filters.stickyRecords }
    private let path: String
    /// A reader has asked for the filter to be checked again (at most one check queued).
    private let stickyCheckQueued = Atomic<Bool>(false)

    init(connection: Connection, path: String, readers: ReaderPool, maxEventsPerTransaction: Int, factsBesideMinimum: Int) {
        self.connection = connection
        let filters = WriterFilters(connection: connection)
        self.filters = filters
        transaction = SQLiteWriteTransaction(connection: connection, readers: readers, filters: filters, factsBesideMinimum: factsBesideMinimum)
        self.path = path
        self.maxEventsPerTransaction = maxEventsPerTransaction
        queue.setSpecific(key: Self.onWriterQueue, value: true)
    }

    var transactionsCommitted: Int { transaction.committed }

    func submit(_ events: [Event], commitEvery: Int? = nil, consumed: (@Sendable () -> Void)? = nil,
                completion: @escaping Completion) {
        if isClosed.load(ordering: .acquiring) {
            consumed?()
            completion(.failure(StoreError(kind: .closed, message: "closed", context: "append")))
            return
        }
        // A bulk batch counts as taken at once while the queue holds less than one commit's worth,
        // so the producer reads on while the writer writes the previous commit.
        let takenNow: Bool = pending.withLock { queued in
            let early = commitEvery.map { queued.reduce(events.count) { $0 + $1.events.count } <= $0 } ?? false
            queued.append(Request(events: events, commitEvery: commitEvery, consumed: early ? nil : consumed, completion: completion))
            return early
        }
        if takenNow { consumed?() }
        queue.async { self.drain() }
    }

    /// Runs `body` on the write connection in a transaction of its own and returns after the
    /// commit; for the rare writes that are not events (the copy cache). Held bulk events are
    /// committed first, so `body` never rides in a load that could be abandoned.
    func perform<T>(context: String, _ body: (Connection) throws -> T) throws -> T {
        if isClosed.load(ordering: .acquiring) { throw StoreError(kind: .closed, message: "closed", context: context) }
        return try queue.sync {
            if !held.isEmpty { commitHeld() }
            defer { filters.publishStickyRecords() }
            return try connection.transaction { try body(connection) }
        }
    }

    /// Stops taking requests, waits for the queued ones and commits held bulk events.
    func close() {
        isClosed.store(true, ordering: .releasing)
        // A completion handler may drop the last reference to the store, closing it from the
        // writer's own queue: finish inline there instead of waiting on ourselves.
        if DispatchQueue.getSpecific(key: Self.onWriterQueue) == true {
            if !held.isEmpty { commitHeld() }
            return
        }
        queue.sync {
            if !held.isEmpty { commitHeld() }
        }
    }

    private func drain() {
        let group: [Request] = pending.withLock { queued in
            guard !queued.isEmpty else { return [] }
            var count = 0
            var taken = 0
            while taken < queued.count && (taken == 0 || count + queued[taken].events.count <= maxEventsPerTransaction) {
                count += queued[taken].events.count
                taken += 1
            }
            let group = Array(queued[..<taken])
            queued.removeFirst(taken)
            return group
        }
        guard !group.isEmpty else { return }
        var commitNow = isClosed.load(ordering: .acquiring)
        for request in group {
            held.append(request)
            heldEvents += request.events.count
            if let threshold = request.commitEvery {
                if heldEvents >= threshold { commitNow = true }
            } else {
                commitNow = true
            }
            request.consumed?()
        }
        if commitNow { commitHeld() }
    }

    /// Writes every held request in one transaction and answers them after the commit. When
    /// that fails, each regular request is tried again in a transaction of its own, so a
    /// failing one fails alone; held bulk requests fail together (a load re-run stores them).
    private func commitHeld() {
        let requests = held
        held = []
        heldEvents = 0
        do {
            let results = try transaction.run(requests.map(\.events), bulk: requests.contains { $0.commitEvery != nil })
            for (request, result) in zip(requests, results) { request.completion(.success(result)) }
        } catch {
            if requests.count == 1 || requests.allSatisfy({ $0.commitEvery != nil }) {
                for request in requests { request.completion(.failure(error)) }
                return
            }
            for request in requests {
                if request.commitEvery != nil {
                    request.completion(.failure(error))
                    continue
                }
                do {
                    request.completion(.success(try transaction.run([request.events], bulk: false)[0]))
                } catch {
                    request.completion(.failure(error))
                }
            }
        }
    }

    /// Builds `stickyRecords` if needed and publishes it; from now on every commit keeps it.
    /// Asynchronous: until it is published, sticky readers read the store.
    func keepStickyRecords() {
        queue.async {
            self.filters.stickyRecordsWanted = true
            self.checkStickyRecords()
        }
    }

    /// For a reader that found the WAL index past the published stamp while the writer was
    /// idle (another process committed, say): checks the filter again on the writer's queue.
    func recheckStickyRecords() {
        guard stickyCheckQueued.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { return }
        queue.async {
            self.stickyCheckQueued.store(false, ordering: .releasing)
            self.checkStickyRecords()
        }
    }

    /// On `queue`: rebuilds the filter in a read transaction of its own if another connection
    /// has committed since it was complete (at most once a second), then publishes it.
    private func checkStickyRecords() {
        guard filters.stickyRecordsWanted, !isClosed.load(ordering: .acquiring) else { return }
        do {
            try connection.execute("BEGIN")
            do {
                try filters.refreshStickyRecords()
                try connection.execute("COMMIT")
            } catch {
                try? connection.execute("ROLLBACK")
                throw error
            }
            filters.publishStickyRecords()
        } catch {
            filters.dropStickyRecords()
        }
    }

}

