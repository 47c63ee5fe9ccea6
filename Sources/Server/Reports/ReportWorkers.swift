import Dispatch
import Synchronization

/// Where reports are computed: never on the threads that answer requests (a report at a million
/// users takes seconds, and every `/v1/assign` of the same thread would wait for it), on threads
/// of lower priority, at most `width` at once per node. A report asked for while `width` are
/// running is refused at once, so the caller retries rather than queueing work nobody may wait for.
final class ReportWorkers: Sendable {
    /// Reports computed at once on one node.
    let width: Int
    /// What a refused caller is told to wait, in seconds (`Retry-After`).
    let retryAfterSeconds: Int
    private let running = Atomic<Int>(0)
    private let queue = DispatchQueue(label: "abctl.reports", qos: .utility, attributes: .concurrent)

    init(width: Int = 2, retryAfterSeconds: Int = 5) {
        self.width = width
        self.retryAfterSeconds = retryAfterSeconds
    }

    /// Reports being computed now.
    var busy: Int { running.load(ordering: .relaxed) }

    /// Runs `work` on a report thread and hands its result to `done` there; false, with nothing
    /// run, when `width` reports are already running.
    func run<T: Sendable>(_ work: @escaping @Sendable () -> T, done: @escaping @Sendable (T) -> Void) -> Bool {
        while true {
            let now = running.load(ordering: .relaxed)
            guard now < width else { return false }
            if running.compareExchange(expected: now, desired: now + 1, ordering: .acquiringAndReleasing).exchanged { break }
        }
        queue.async { [self] in
            let result = work()
            running.subtract(1, ordering: .acquiringAndReleasing)
            done(result)
        }
        return true
    }
}
