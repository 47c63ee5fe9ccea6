import Dispatch

/// Stores events durably: what `abctl ingest`, `POST /v1/events`, the webhooks and the
/// simulator write through.
///
/// A call's events are stored whole or not at all, and answered only after the transaction
/// holding them has committed. An event already stored (the same idempotency key), or
/// given twice in one call, is counted as a duplicate and not stored again.
public protocol EventWriter: Sendable {
    /// Stores `events` (already checked, e.g. by `EventParser`); `completion` runs once after
    /// the commit, or with the error when nothing of them was stored. Concurrent callers may
    /// share one transaction (group commit).
    func submit(_ events: [Event], completion: @escaping @Sendable (Result<AppendResult, any Error>) -> Void)

    /// For bulk loads: like `submit`, but the store may keep a transaction open across calls
    /// until about `commitEvery` events are uncommitted (or `flush` commits them); `completion`
    /// still runs only after the commit. `consumed` runs as soon as the store has taken the
    /// batch, so a producer can bound how many batches it keeps in memory.
    func submitBulk(_ events: [Event], commitEvery: Int, consumed: @escaping @Sendable () -> Void,
                    completion: @escaping @Sendable (Result<AppendResult, any Error>) -> Void)

    /// Commits whatever bulk appends are still open, and waits for it.
    func flush() throws
}

extension EventWriter {
    /// A store without a bulk path: each batch is an ordinary `submit`.
    public func submitBulk(_ events: [Event], commitEvery: Int, consumed: @escaping @Sendable () -> Void,
                           completion: @escaping @Sendable (Result<AppendResult, any Error>) -> Void) {
        consumed()
        submit(events, completion: completion)
    }

    public func flush() throws { _ = try appendAndWait([]) }

    /// `submit`, awaited.
    public func append(_ events: [Event]) async throws -> AppendResult {
        try await withCheckedThrowingContinuation { continuation in
            submit(events) { continuation.resume(with: $0) }
        }
    }

    /// `submit` for threads that may block (the CLI, libmicrohttpd's handler threads).
    public func appendAndWait(_ events: [Event]) throws -> AppendResult {
        let done = DispatchSemaphore(value: 0)
        let box = AppendResultBox()
        submit(events) { result in
            box.result = result
            done.signal()
        }
        done.wait()
        return try box.result!.get()
    }
}

/// Hands a result from the store's thread to a waiting one (the semaphore orders the accesses).
private final class AppendResultBox: @unchecked Sendable {
    var result: Result<AppendResult, any Error>?
}
