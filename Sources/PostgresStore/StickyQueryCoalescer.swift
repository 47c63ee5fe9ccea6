import Dispatch
import Synchronization

/// Joins the sticky lookups of concurrent assign requests into shared queries, so one round
/// trip to PostgreSQL answers many requests (group commit, for reads).
///
/// A lookup that finds fewer than `maxInFlight` queries running runs its own at once, so an idle
/// server adds no wait. Otherwise it queues; when a running query ends, its caller hands the
/// queue (up to `maxBatch` lookups) to the first queued caller, which runs it as one query.
///
/// Never a stale answer: a queued lookup only joins a query that starts after it was queued, and
/// each query reads a fresh snapshot, so an exposure acknowledged before the lookup arrived
/// (by any node) is seen, exactly as with a query of its own.
final class StickyQueryCoalescer: Sendable {
    /// One user's experiments, and the answers once a query filled them.
    final class Lookup: @unchecked Sendable {
        let userID: String
        let experiments: [String]
        /// Written by the query's runner before `ready` is signalled, read by the owner after.
        var result: Result<[String?], any Error> = .success([])
        /// Set when the owner must run the queued lookups itself instead of reading `result`.
        var leads = false
        let ready = DispatchSemaphore(value: 0)

        init(userID: String, experiments: [String]) {
            self.userID = userID
            self.experiments = experiments
        }
    }

    private struct State {
        var running = 0
        var queue: [Lookup] = []
    }

    private let state = Mutex(State())
    private let maxInFlight: Int
    private let maxBatch: Int
    /// Answers a batch of lookups, one answer array per lookup, in order (one round trip).
    private let query: @Sendable ([Lookup]) throws -> [[String?]]

    init(maxInFlight: Int, maxBatch: Int, query: @escaping @Sendable ([Lookup]) throws -> [[String?]]) {
        self.maxInFlight = max(1, maxInFlight)
        self.maxBatch = max(1, maxBatch)
        self.query = query
    }

    /// The answers for `experiments` of `userID`, from a query of its own or one it shares.
    func lookup(userID: String, experiments: [String]) throws -> [String?] {
        let mine = Lookup(userID: userID, experiments: experiments)
        let runsNow = state.withLock { s in
            if s.running < maxInFlight {
                s.running += 1
                return true
            }
            s.queue.append(mine)
            return false
        }
        var batch = [mine]
        if !runsNow {
            mine.ready.wait()
            guard mine.leads else { return try mine.result.get() }
            batch = takeQueued(leader: mine)
        }
        run(batch)
        handOff()
        return try mine.result.get()
    }

    /// The queued lookups this leader runs: itself first, then the oldest, up to `maxBatch`.
    private func takeQueued(leader: Lookup) -> [Lookup] {
        state.withLock { s in
            let taken = s.queue.prefix(maxBatch - 1)
            s.queue.removeFirst(taken.count)
            return [leader] + taken
        }
    }

    /// Runs one query for `batch` and wakes every other lookup in it.
    private func run(_ batch: [Lookup]) {
        do {
            let answers = try query(batch)
            for (lookup, answer) in zip(batch, answers) { lookup.result = .success(answer) }
        } catch {
            for lookup in batch { lookup.result = .failure(error) }
        }
        for lookup in batch.dropFirst() { lookup.ready.signal() }
    }

    /// Passes this query's slot to the first queued lookup, or frees it when none waits.
    private func handOff() {
        let next: Lookup? = state.withLock { s in
            guard !s.queue.isEmpty else {
                s.running -= 1
                return nil
            }
            let first = s.queue.removeFirst()
            first.leads = true
            return first
        }
        next?.ready.signal()
    }
}
