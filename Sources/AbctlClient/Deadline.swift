import Foundation

/// Thrown by `withDeadline` when the operation did not finish in time.
struct DeadlineExceeded: Error {}

/// The result of `operation`, or `DeadlineExceeded` once `limit` has passed.
///
/// The operation is cancelled at the deadline but not waited for: a model or a network call that
/// ignores cancellation cannot hold the caller (a task group would wait for it).
func withDeadline<T: Sendable>(_ limit: Duration, _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
    let race = Race<T>()
    return try await withCheckedThrowingContinuation { continuation in
        race.start(continuation)
        let work = Task {
            do { race.finish(.success(try await operation())) } catch { race.finish(.failure(error)) }
        }
        let timer = Task {
            try? await Task.sleep(for: limit)
            if race.finish(.failure(DeadlineExceeded())) { work.cancel() }
        }
        race.onFinish { timer.cancel() }
    }
}

/// Resumes a continuation exactly once, with whichever result comes first.
/// A class with a lock rather than `Mutex`, which needs iOS 18 / macOS 15.
private final class Race<T: Sendable>: @unchecked Sendable {
    // Every stored property is read and written only while `lock` is held.
    private let lock = NSLock()
    private var continuation: CheckedContinuation<T, any Error>?
    private var done = false
    private var cleanup: (@Sendable () -> Void)?

    func start(_ continuation: CheckedContinuation<T, any Error>) {
        lock.withLock { self.continuation = continuation }
    }

    /// Runs `action` when the race is decided (at once if it already is).
    func onFinish(_ action: @escaping @Sendable () -> Void) {
        let already = lock.withLock { () -> Bool in
            if done { return true }
            cleanup = action
            return false
        }
        if already { action() }
    }

    /// True when this result won.
    @discardableResult
    func finish(_ result: Result<T, any Error>) -> Bool {
        let (won, continuation, cleanup) = lock.withLock { () -> (Bool, CheckedContinuation<T, any Error>?, (@Sendable () -> Void)?) in
            if done { return (false, nil, nil) }
            done = true
            defer { self.continuation = nil; self.cleanup = nil }
            return (true, self.continuation, self.cleanup)
        }
        if won {
            continuation?.resume(with: result)
            cleanup?()
        }
        return won
    }
}
