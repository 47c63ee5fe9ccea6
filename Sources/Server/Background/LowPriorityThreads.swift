import Dispatch
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Work that must never slow the answers to `/v1/assign`: reports, the console's pages, the
/// experiment files' histories. It runs on at most `width` threads of lower priority (nice 10),
/// each taking the next job from a queue of at most `waiting`; a job offered beyond that is
/// refused at once, so the caller answers "retry later" rather than queueing work nobody may
/// wait for.
///
/// On Linux a thread's nice is its own, and a dispatch queue's quality of service does not reach
/// it (a `.utility` queue's thread runs at nice 2), so each thread lowers its own priority when it
/// starts. Threads are started as work
/// comes and end after `idleSeconds` without any, so an idle server keeps none.
final class LowPriorityThreads: Sendable {
    /// The nice value of every such thread (the request threads keep 0).
    static let niceness: Int32 = 10
    /// How long a thread waits for its next job before it ends.
    static let idleSeconds: Double = 30

    /// The threads' name, as `top -H` and a debugger show it.
    let name: String
    /// Jobs run at once.
    let width: Int
    /// Jobs that may wait for a thread beyond the `width` running.
    let waiting: Int
    /// What a refused caller is told to wait, in seconds (`Retry-After`).
    let retryAfterSeconds: Int

    /// A job returns what is left to do once it no longer counts as running (handing its
    /// result on), so `busy` is already lower when the caller hears back.
    private typealias Job = @Sendable () -> (@Sendable () -> Void)

    private struct State {
        var jobs: [Job] = []
        var running = 0
        var threads = 0
        /// Threads waiting for a job.
        var idle = 0
    }

    private let state = Mutex(State())
    /// Signalled once per job queued.
    private let queued = DispatchSemaphore(value: 0)

    init(name: String, width: Int, waiting: Int, retryAfterSeconds: Int = 5) {
        precondition(width > 0 && waiting >= 0)
        self.name = name
        self.width = width
        self.waiting = waiting
        self.retryAfterSeconds = retryAfterSeconds
    }

    /// Jobs running or waiting now.
    var busy: Int { state.withLock { $0.running + $0.jobs.count } }

    /// Runs `work` on one of the threads and hands its result to `done` there; false, with
    /// nothing run, when `width` jobs run and `waiting` wait already.
    func run<T: Sendable>(_ work: @escaping @Sendable () -> T, done: @escaping @Sendable (T) -> Void) -> Bool {
        offer {
            let result = work()
            return { done(result) }
        }
    }

    /// Runs `work` on one of the threads; false, with nothing run, beyond the bound.
    func run(_ work: @escaping @Sendable () -> Void) -> Bool {
        offer {
            work()
            return {}
        }
    }

    private func offer(_ job: @escaping Job) -> Bool {
        let (accepted, startThread) = state.withLock { s -> (Bool, Bool) in
            guard s.running + s.jobs.count < width + waiting else { return (false, false) }
            s.jobs.append(job)
            // Another thread when the idle ones cannot take every queued job, up to `width`.
            guard s.jobs.count > s.idle, s.threads < width else { return (true, false) }
            s.threads += 1
            return (true, true)
        }
        guard accepted else { return false }
        queued.signal()
        if startThread {
            let thread = Thread { [self] in loop() }
            thread.name = name
            thread.start()
        }
        return true
    }

    private func loop() {
        Self.lowerThisThreadsPriority()
        while true {
            state.withLock { $0.idle += 1 }
            let woken = queued.wait(timeout: .now() + Self.idleSeconds) == .success
            let job = state.withLock { s -> Job?? in
                s.idle -= 1
                guard s.jobs.isEmpty else {
                    s.running += 1
                    return .some(s.jobs.removeFirst())
                }
                // Woken for a job another thread took after its own wait ran out: wait again.
                if woken { return .some(nil) }
                s.threads -= 1
                return nil
            }
            guard let job else { return }
            guard let job else { continue }
            let then = job()
            state.withLock { $0.running -= 1 }
            then()
        }
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

    /// Lowers the calling thread to `niceness`, leaving every other thread as it is.
    static func lowerThisThreadsPriority() {
        #if os(Linux)
        // On Linux, PRIO_PROCESS with `who` 0 is the calling thread alone (each thread is a task with
        // a nice of its own), so the request threads keep theirs.
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, niceness)
        #endif
    }
}
