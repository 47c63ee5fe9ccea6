import Dispatch
import Foundation

/// Thrown by `withDeadline` when the operation did not finish in time.
struct DeadlineExceeded: Error {}

/// The result of `operation`, or `DeadlineExceeded` once `limit` has passed.
///
/// The operation is cancelled at the deadline but not waited for: a model or a network call that
/// ignores cancellation cannot hold the caller (a task group would wait for it). The timer runs
/// on Dispatch, not on Swift's shared pool, so a pool kept busy by the app does not move it.
func withDeadline<T: Sendable>(_ limit: Duration, _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let race = Race(continuation)
        let work = Task {
            do { race.finish(.success(try await operation())) } catch { race.finish(.failure(error)) }
        }
        race.expire(after: limit) { work.cancel() }
    }
}

/// Resumes a continuation exactly once, with whichever result comes first: the work's, or the
/// deadline's `DeadlineExceeded`.
///
/// A class with a lock rather than `Mutex`, which needs iOS 18 / macOS 15.
final class Race<T: Sendable>: @unchecked Sendable {
    // `continuation` and `timer` are read and written only while `lock` is held.
    private let lock = NSLock()
    private var continuation: CheckedContinuation<T, any Error>?
    private var timer: DispatchWorkItem?

    init(_ continuation: CheckedContinuation<T, any Error>) {
        self.continuation = continuation
    }

    /// Finishes with `DeadlineExceeded` after `limit` unless a result came first; `onExpiry` then
    /// stops the work.
    func expire(after limit: Duration, onExpiry: @escaping @Sendable () -> Void) {
        let item = DispatchWorkItem { [self] in
            if finish(.failure(DeadlineExceeded())) { onExpiry() }
        }
        let pending = lock.withLock { () -> Bool in
            guard continuation != nil else { return false }
            timer = item
            return true
        }
        guard pending else { return }
        let nanoseconds = max(0, limit.components.seconds) * 1_000_000_000 + limit.components.attoseconds / 1_000_000_000
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(nanoseconds)), execute: item)
    }

    /// True when this result won.
    @discardableResult
    func finish(_ result: Result<T, any Error>) -> Bool {
        let (continuation, timer) = lock.withLock { () -> (CheckedContinuation<T, any Error>?, DispatchWorkItem?) in
            defer { self.continuation = nil; self.timer = nil }
            return (self.continuation, self.timer)
        }
        guard let continuation else { return false }
        timer?.cancel()
        continuation.resume(with: result)
        return true
    }
}
