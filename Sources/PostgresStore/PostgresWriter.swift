import Events
import ExperimentDefinitions
import Foundation
import Synchronization

/// Callers' batches queue up; each of `workers` threads takes whatever has queued (up to about
/// `maxEventsPerTransaction` events) and stores it in one transaction on its own connection.
/// Several transactions run at once, and PostgreSQL groups their commits' flushes. Each caller
/// hears back only after the transaction holding its batch has committed, or failed.
///
/// Workers take their connections from a pool of their own that shares the store's
/// `ServerGeneration`: a connection that broke is dropped, one that a restarted server closed
/// while it sat idle is retired with all its generation and the transaction runs once more on a
/// fresh connection (see `ConnectionPool`); while the server is down, every batch fails at once
/// (never acknowledged), and writing resumes as soon as a connection succeeds again.
final class PostgresWriter: Sendable {
    typealias Completion = @Sendable (Result<AppendResult, any Error>) -> Void

    struct Request: Sendable {
        var events: [Event]
        var consumed: (@Sendable () -> Void)?
        var completion: Completion
    }

    private struct State {
        var pending: [Request] = []
        var closed = false
        var running = 0
    }

    private let target: ConnectionTarget
    private let connections: ConnectionPool
    private let maxEventsPerTransaction: Int
    private let state = Mutex(State())
    /// Signals work or closing to the workers (`NSCondition` only wakes; `state` holds the data).
    private let wake = NSCondition()
    private let finished = DispatchGroup()
    private let transactionCount = Atomic<Int>(0)
    private let insertOrder = InsertOrder()

    init(target: ConnectionTarget, generation: ServerGeneration, workers: Int, maxEventsPerTransaction: Int) {
        self.target = target
        connections = ConnectionPool(target: target, maxIdle: max(1, workers), generation: generation) { fresh in
            try fresh.execute(EventWriteTransaction.prepareSession, context: "connect (staging tables)")
        }
        self.maxEventsPerTransaction = maxEventsPerTransaction
        for index in 0..<max(1, workers) {
            finished.enter()
            let thread = Thread { [self] in
                work()
                finished.leave()
            }
            thread.name = "abctl.postgres.writer.\(index)"
            thread.start()
        }
    }

    var transactionsCommitted: Int { transactionCount.load(ordering: .relaxed) }

    func submit(_ events: [Event], consumed: (@Sendable () -> Void)? = nil, completion: @escaping Completion) {
        let accepted = state.withLock { s -> Bool in
            guard !s.closed else { return false }
            s.pending.append(Request(events: events, consumed: consumed, completion: completion))
            return true
        }
        guard accepted else {
            consumed?()
            completion(.failure(PostgresError(kind: .closed, context: "append events", message: "closed", location: target.location)))
            return
        }
        wake.lock()
        wake.signal()
        wake.unlock()
    }

    /// Waits until nothing is queued or running.
    func waitIdle() {
        while state.withLock({ !$0.pending.isEmpty || $0.running > 0 }) { usleep(1_000) }
    }

    /// Finishes queued batches, then stops the workers.
    func close() {
        state.withLock { $0.closed = true }
        wake.lock()
        wake.broadcast()
        wake.unlock()
        finished.wait()
        connections.drain()
    }

    private func work() {
        while let (requests, ticket) = take() {
            let order = insertOrder
            var registration: InsertOrder.Registration?
            let outcome: Result<[AppendResult], any Error> = Result {
                try connections.withConnection { connection in
                    let turn = EventWriteTransaction.Turn(
                        register: { keys in
                            // A second try (on a fresh connection) keeps the first one's place.
                            if let r = registration { return r.late }
                            let r = order.register(ticket, keys: keys)
                            registration = r
                            return r.late
                        },
                        inserted: { if let r = registration { order.inserted(r) } },
                        waitForEarlier: { if let r = registration { order.waitForEarlier(r) } })
                    return try EventWriteTransaction.run(requests.map(\.events), on: connection, turn: turn)
                }
            }
            if let registration { insertOrder.end(registration) } else { insertOrder.abandon(ticket) }
            state.withLock { $0.running -= 1 }
            switch outcome {
            case .success(let results):
                transactionCount.add(1, ordering: .relaxed)
                for (request, result) in zip(requests, results) { request.completion(.success(result)) }
            case .failure(let error):
                for request in requests { request.completion(.failure(error)) }
            }
        }
    }

    /// The next requests to store together and their place in the insert order; nil once
    /// closed and drained.
    private func take() -> (requests: [Request], ticket: Int)? {
        wake.lock()
        defer { wake.unlock() }
        while true {
            let taken = state.withLock { s -> (requests: [Request], ticket: Int)?? in
                if s.pending.isEmpty { return s.closed ? .some(nil) : nil }
                var events = 0
                var count = 0
                for request in s.pending {
                    if count > 0 && events + request.events.count > maxEventsPerTransaction { break }
                    events += request.events.count
                    count += 1
                }
                let taken = Array(s.pending.prefix(count))
                s.pending.removeFirst(count)
                s.running += 1
                return .some((taken, insertOrder.ticket()))
            }
            if let taken {
                if let requests = taken?.requests { for r in requests { r.consumed?() } }
                return taken
            }
            wake.wait()
        }
    }
}
