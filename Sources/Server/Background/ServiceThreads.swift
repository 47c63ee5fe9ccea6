import Dispatch
import Foundation
import Synchronization

/// The named threads of a background service (safeguards, notifications) and the one signal that
/// ends them: each loops `while !isStopping`, sleeping with `pause`, which `stop` cuts short.
final class ServiceThreads: Sendable {
    private let stopping = Atomic<Bool>(false)
    private let wake = NSCondition()
    private let done = DispatchGroup()

    var isStopping: Bool { stopping.load(ordering: .relaxed) }

    /// Starts one thread per loop, named as given.
    func start(_ loops: [(name: String, body: @Sendable () -> Void)]) {
        for loop in loops {
            done.enter()
            let group = done
            let thread = Thread {
                loop.body()
                group.leave()
            }
            thread.name = loop.name
            thread.start()
        }
    }

    /// Sleeps up to `seconds`, or less once `stop` is called.
    func pause(_ seconds: Double) {
        wake.lock()
        if !isStopping { _ = wake.wait(until: Date(timeIntervalSinceNow: max(0, seconds))) }
        wake.unlock()
    }

    /// Ends every loop at its next check and waits for them, at most `timeout` seconds.
    func stop(timeout: Double) {
        stopping.store(true, ordering: .relaxed)
        wake.lock()
        wake.broadcast()
        wake.unlock()
        _ = done.wait(timeout: .now() + timeout)
    }
}
