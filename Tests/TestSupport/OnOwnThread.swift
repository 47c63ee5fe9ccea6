import Foundation

/// Runs blocking work (a socket read, a lock a child holds) on a thread of its own and awaits it,
/// so the test pool's few threads stay free for the tests that can run meanwhile.
public func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}

extension DispatchGroup {
    /// Waits for the group's work without holding a thread (`wait()` would hold one of the pool's).
    public func finished() async {
        await withCheckedContinuation { continuation in notify(queue: .global()) { continuation.resume() } }
    }
}
