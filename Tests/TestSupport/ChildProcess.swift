import Foundation
import Synchronization
import SystemCall
#if canImport(Glibc)
import Glibc
#endif

/// A child process that no test thread waits on.
///
/// Swift Testing runs every test on a pool of threads as small as the machine's core count; a test
/// that blocked in `waitpid` or on a pipe would hold one of them, and on a busy machine the other
/// tests' time limits would run out behind it. Here the output goes to files in a folder of the
/// child's own, read as they grow, and a thread of the child's own waits for its end, so waiting
/// suspends the test's task instead of holding its thread. Started by `Spawn` (posix_spawn).
public final class ChildProcess: Sendable {
    private let ending = Ending()
    public let folder: TemporaryFolder
    public var stdoutPath: String { folder.path + "/stdout" }
    public var stderrPath: String { folder.path + "/stderr" }
    public let pid: Int32

    public struct Output: Sendable {
        public var status: Int32
        public var stdout: String
        public var stderr: String
    }

    /// Starts `executable` with exactly `environment` (callers merge the inherited one in),
    /// in `directory`, with `stdin` as its standard input (else end of file at once).
    public init(_ executable: String, _ arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment,
                in directory: String? = nil, stdin: String? = nil) throws {
        let folder = TemporaryFolder(prefix: "abctl-child")
        self.folder = folder
        let pid = try Spawn.start(executable, arguments, environment: environment, in: directory,
                                  stdin: .path(stdin.map { folder.write("stdin", $0) } ?? "/dev/null"),
                                  stdout: .path(folder.path + "/stdout"), stderr: .path(folder.path + "/stderr"))
        self.pid = pid
        let ending = self.ending
        Thread.detachNewThread { ending.end(Spawn.wait(pid)) }
    }

    deinit {
        if isRunning { kill(pid, SIGKILL) }
    }

    /// Runs a program to its end; one still running after `limit` is killed (SIGKILL, status 9).
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:], in directory: String? = nil,
                           stdin: String? = nil, limit: Duration = .seconds(600)) async throws -> Output {
        let child = try ChildProcess(executable, arguments, environment: ProcessInfo.processInfo.environment.merging(environment) { $1 },
                                     in: directory, stdin: stdin)
        // A Dispatch timer, not a task: it fires on time however busy the test pool is.
        let pid = child.pid, ending = child.ending
        DispatchQueue.global().asyncAfter(deadline: .now() + limit.inSeconds) { if ending.status == nil { kill(pid, SIGKILL) } }
        let status = await child.exit()
        return Output(status: status, stdout: child.stdout, stderr: child.stderr)
    }

    /// Runs a program to its end on the calling thread, for a synchronous caller. Only for a
    /// command of moments (a git commit, a checksum): it holds a thread of the test pool meanwhile.
    public static func runBlocking(_ executable: String, _ arguments: [String], environment: [String: String] = [:],
                                   in directory: String? = nil) throws -> Output {
        let child = try ChildProcess(executable, arguments, environment: ProcessInfo.processInfo.environment.merging(environment) { $1 },
                                     in: directory)
        let ended = DispatchSemaphore(value: 0)
        child.ending.whenEnded { _ in ended.signal() }
        ended.wait()
        return Output(status: child.exitStatus ?? -1, stdout: child.stdout, stderr: child.stderr)
    }

    public var stdout: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }
    public var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    /// Nil while it runs; then its exit status (for a killed process, the signal's number).
    public var exitStatus: Int32? { ending.status }
    public var isRunning: Bool { ending.status == nil }
    /// Whether it ended by a signal (a kill) rather than by exiting.
    public var endedBySignal: Bool { ending.bySignal }

    /// Its exit status, once it has ended.
    public func exit() async -> Int32 {
        await withCheckedContinuation { waiter in ending.whenEnded { waiter.resume(returning: $0) } }
    }

    /// Its exit status if it ends within `limit`; nil if it is still running then.
    public func exit(within limit: Duration) async -> Int32? {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if let status = ending.status { return status }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return ending.status
    }

    public func signal(_ signal: Int32) {
        if isRunning { kill(pid, signal) }
    }

    /// Kills it (SIGKILL), as a crash or a pulled cable would end it, and awaits the end.
    public func stop() async {
        signal(SIGKILL)
        _ = await exit()
    }

    /// The first value `match` finds in a whole line of stdout, waiting up to `limit` while the
    /// process runs; nil when it ended or the time ran out first.
    public func firstLine<T>(within limit: Duration, _ match: (Substring) -> T?) async -> T? {
        let deadline = ContinuousClock.now + limit
        while true {
            let ended = !isRunning
            let lines = stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            for line in lines { if let found = match(line) { return found } }
            if ended || ContinuousClock.now >= deadline { return nil }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }
}

/// The end of a child: its status, and what waits for it (a task's continuation, a blocked thread's semaphore).
private final class Ending: Sendable {
    typealias Waiter = @Sendable (Int32) -> Void
    private let state = Mutex<(status: Int32?, bySignal: Bool, waiters: [Waiter])>((nil, false, []))

    var status: Int32? { state.withLock { $0.status } }
    var bySignal: Bool { state.withLock { $0.bySignal } }

    func end(_ end: (status: Int32, bySignal: Bool)) {
        let waiters = state.withLock { s in
            s.status = end.status
            s.bySignal = end.bySignal
            defer { s.waiters = [] }
            return s.waiters
        }
        for waiter in waiters { waiter(end.status) }
    }

    /// Calls `waiter` with the status once the child has ended (at once if it has).
    func whenEnded(_ waiter: @escaping Waiter) {
        let status: Int32? = state.withLock { s in
            if s.status == nil { s.waiters.append(waiter) }
            return s.status
        }
        if let status { waiter(status) }
    }
}

extension Duration {
    /// In seconds, as a Double (for Dispatch).
    var inSeconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
