import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Where reports are computed: never on the threads that answer requests (a report at a million
/// users takes seconds, and every `/v1/assign` of the same thread would wait for it), on threads
/// of lower priority, at most `width` at once per node. A report asked for while `width` are
/// running is refused at once, so the caller retries rather than queueing work nobody may wait for.
final class ReportWorkers: Sendable {
    /// Reports computed at once on one node.
    let width: Int
    /// What a refused caller is told to wait, in seconds (`Retry-After`).
    let retryAfterSeconds: Int
    /// The nice value of a report thread: on Linux a thread's nice is its own, and a dispatch
    /// queue's quality of service changes nothing there, so each report gets a thread of its own
    /// (a report lasts seconds; starting a thread costs microseconds).
    static let niceness: Int32 = 10
    private let running = Atomic<Int>(0)

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
        let thread = Thread { [self] in
            Self.lowerThisThreadsPriority()
            let result = work()
            running.subtract(1, ordering: .acquiringAndReleasing)
            done(result)
        }
        thread.name = "abctl.report"
        thread.start()
        return true
    }

    /// The calling thread's nice value, as the kernel holds it.
    static func currentNiceness() -> Int32 {
        #if os(Linux)
        errno = 0
        return getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
        #else
        return 0
        #endif
    }

    static func lowerThisThreadsPriority() {
        #if os(Linux)
        // On Linux, PRIO_PROCESS with `who` 0 is the calling thread alone (each thread is a task with
        // a nice of its own), so the request threads keep theirs.
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, niceness)
        #endif
    }
}
