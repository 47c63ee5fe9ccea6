import ExperimentDefinitions
import Dispatch
import Foundation

/// Joins the sticky lookups of concurrent assign requests into shared queries, so one round
/// trip to PostgreSQL answers many requests (group commit, for reads).
///
/// Lookups queue; up to `maxInFlight` worker threads, each running one query at a time on its
/// own connection, take the whole queue (up to `maxBatch` lookups) as one query and hand each
/// lookup its answers. A caller holds no thread while it waits (`submit`), so requests waiting
/// together are as many as the server has in flight, not as many as it has threads. An idle
/// worker starts the next query as soon as a lookup arrives: no batching delay, only the hop
/// to the worker thread.
///
/// Never a stale answer: a lookup only joins a query that starts after it was queued, and each
/// query reads a fresh snapshot, so an exposure acknowledged before the lookup arrived (by any
/// node) is seen, exactly as with a query of its own.
final class StickyQueryCoalescer: Sendable {
    /// One user's experiments and where their answers go.
    struct Lookup: Sendable {
        let userID: UserID
        let experiments: [String]
        let completion: @Sendable (Result<[String?], any Error>) -> Void
    }

    /// The queue and the workers' bookkeeping, all guarded by `condition`.
    private final class Queue: @unchecked Sendable {
        let condition = NSCondition()
        var waiting: [Lookup] = []
        var workers = 0
        var idleWorkers = 0
        var closed = false
    }

    private let queue = Queue()
    private let maxInFlight: Int
    private let maxBatch: Int
    /// Answers a batch of lookups, one answer array per lookup, in order (one round trip).
    private let query: @Sendable ([Lookup]) throws -> [[String?]]

    init(maxInFlight: Int, maxBatch: Int, query: @escaping @Sendable ([Lookup]) throws -> [[String?]]) {
        self.maxInFlight = max(1, maxInFlight)
        self.maxBatch = max(1, maxBatch)
        self.query = query
    }

    /// Lets the workers finish what is queued, then end.
    deinit {
        queue.condition.lock()
        queue.closed = true
        queue.condition.broadcast()
        queue.condition.unlock()
    }

    /// Queues a lookup; `completion` runs once, on a worker thread, with its answers.
    func submit(userID: UserID, experiments: [String], completion: @escaping @Sendable (Result<[String?], any Error>) -> Void) {
        let q = queue
        q.condition.lock()
        q.waiting.append(Lookup(userID: userID, experiments: experiments, completion: completion))
        if q.idleWorkers > 0 {
            q.condition.signal()
        } else if q.workers < maxInFlight {
            q.workers += 1
            let (maxBatch, query) = (self.maxBatch, self.query)
            let thread = Thread { Self.work(q, maxBatch: maxBatch, query: query) }
            thread.name = "abctl-sticky"
            thread.start()
        }
        q.condition.unlock()
    }

    /// The answers for `experiments` of `userID`, waiting on the caller's thread.
    func lookup(userID: UserID, experiments: [String]) throws -> [String?] {
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var answer: Result<[String?], any Error> = .success([])
        submit(userID: userID, experiments: experiments) { result in
            answer = result
            done.signal()
        }
        done.wait()
        return try answer.get()
    }

    /// A worker: takes the queue as one batch whenever it is not empty, until closed and drained.
    private static func work(_ q: Queue, maxBatch: Int, query: @Sendable ([Lookup]) throws -> [[String?]]) {
        q.condition.lock()
        while true {
            while q.waiting.isEmpty && !q.closed {
                q.idleWorkers += 1
                q.condition.wait()
                q.idleWorkers -= 1
            }
            if q.waiting.isEmpty {
                q.workers -= 1
                q.condition.unlock()
                return
            }
            let batch = Array(q.waiting.prefix(maxBatch))
            q.waiting.removeFirst(batch.count)
            q.condition.unlock()
            run(batch, query: query)
            q.condition.lock()
        }
    }

    /// Runs one query for `batch` and hands every lookup its answers (or the query's error).
    private static func run(_ batch: [Lookup], query: @Sendable ([Lookup]) throws -> [[String?]]) {
        do {
            let answers = try query(batch)
            for (lookup, answer) in zip(batch, answers) { lookup.completion(.success(answer)) }
        } catch {
            for lookup in batch { lookup.completion(.failure(error)) }
        }
    }
}
