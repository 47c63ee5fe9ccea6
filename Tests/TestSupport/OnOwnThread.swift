import Foundation

/// Runs blocking work (a socket read, a lock a child holds) on a thread of its own and awaits it,
/// so the test pool's few threads stay free for the tests that can run meanwhile.
public func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}

extension DispatchGroup {
    /// Runs `work` in the group on a thread of its own. Load clients that block on sockets must
    /// not sit on Dispatch's global pool: on Linux it grows about one thread a second, and other
    /// suites' blocked work in the same process can hold it for minutes.
    public func onOwnThread(_ work: @escaping @Sendable () -> Void) {
        enter()
        Thread { work(); self.leave() }.start()
    }

    /// Waits for the group's work without holding a thread (`wait()` would hold one of the pool's).
    public func finished() async {
        await withCheckedContinuation { continuation in notify(queue: .global()) { continuation.resume() } }
    }
}
