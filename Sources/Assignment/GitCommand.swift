import Foundation
import SystemCall
#if canImport(Glibc)
import Glibc
#endif

/// The one way abctl runs `git`: the executable found on `PATH` and started directly (no shell),
/// its arguments as an array, in a folder given with `-C`, within a time and an output bound: a
/// run past its time is killed, and one whose output passes the bound is killed and refused.
public enum GitCommand {
    public struct Limits: Sendable {
        public var seconds: Double
        public var outputBytes: Int
        public init(seconds: Double, outputBytes: Int) {
            self.seconds = seconds
            self.outputBytes = outputBytes
        }
        /// For reading a folder at a revision (`validate --against`): generous, as a CI run waits.
        public static let reading = Limits(seconds: 120, outputBytes: 256 << 20)
    }

    public struct Outcome: Sendable {
        public var status: Int32
        public var output: [UInt8]
        public var error: [UInt8]
        /// stderr as text, trimmed.
        public var errorText: String { String(decoding: error, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) }
    }

    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// No `git` on `PATH`.
        case notInstalled
        case cannotStart(String)
        case timedOut(seconds: Double)
        case outputTooLarge(bytes: Int)

        public var description: String {
            switch self {
            case .notInstalled: "git is not installed (no git on PATH)"
            case .cannotStart(let why): "cannot run git: \(why)"
            case .timedOut(let seconds): "git did not finish within \(Int(seconds)) s"
            case .outputTooLarge(let bytes): "git wrote more than \(bytes) bytes"
            }
        }
    }

    /// `git` on `PATH`, nil when there is none.
    public static func executable(path: String? = ProcessInfo.processInfo.environment["PATH"]) -> String? {
        for folder in (path ?? "/usr/bin:/bin").split(separator: ":") where !folder.isEmpty {
            let candidate = String(folder) + "/git"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Runs `git -C folder arguments…`, writing `input` to its stdin (none: /dev/null).
    public static func run(_ arguments: [String], in folder: String, input: [UInt8]? = nil, limits: Limits) throws(Failure) -> Outcome {
        guard let git = executable() else { throw .notInstalled }
        // Never a prompt for credentials or an editor, and no lock taken only to refresh the index.
        var environment = ProcessInfo.processInfo.environment
        environment["GIT_TERMINAL_PROMPT"] = "0"
        environment["GIT_OPTIONAL_LOCKS"] = "0"
        let pipes: (output: (read: Int32, write: Int32), error: (read: Int32, write: Int32), input: (read: Int32, write: Int32)?)
        do { pipes = (try Spawn.pipe(), try Spawn.pipe(), input == nil ? nil : try Spawn.pipe()) } catch {
            throw .cannotStart(error.description)
        }
        let pid: pid_t
        do {
            pid = try Spawn.start(git, ["-C", folder] + arguments, environment: environment,
                                  stdin: pipes.input.map { .descriptor($0.read) } ?? .path("/dev/null"),
                                  stdout: .descriptor(pipes.output.write), stderr: .descriptor(pipes.error.write))
        } catch {
            for fd in [pipes.output.read, pipes.output.write, pipes.error.read, pipes.error.write, pipes.input?.read, pipes.input?.write] {
                if let fd { close(fd) }
            }
            throw .cannotStart(error.description)
        }
        // The child has its own copies; ours of its ends would keep our reads from ever ending.
        for fd in [pipes.output.write, pipes.error.write, pipes.input?.read] { if let fd { close(fd) } }
        // Written from another thread: a large answer would otherwise fill the output pipe while we still write.
        if let input, let fd = pipes.input?.write {
            Thread.detachNewThread {
                // A git that ended early makes the write fail with EPIPE; blocked here, SIGPIPE
                // does not end the whole process.
                var pipeSignal = sigset_t()
                sigemptyset(&pipeSignal)
                sigaddset(&pipeSignal, SIGPIPE)
                pthread_sigmask(SIG_BLOCK, &pipeSignal, nil)
                input.withUnsafeBytes { bytes in _ = try? SystemCall.writeAll(fd, bytes) }
                close(fd)
            }
        }
        let child = Child(pid: pid)
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + limits.seconds) { child.stop(because: .timedOut) }
        let errorBytes = Bytes(limit: 64 << 10)
        let errorDone = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            _ = drain(pipes.error.read, into: errorBytes, stoppingAtTheLimit: false)
            close(pipes.error.read)
            errorDone.signal()
        }
        let outputBytes = Bytes(limit: limits.outputBytes)
        if !drain(pipes.output.read, into: outputBytes, stoppingAtTheLimit: true) { child.stop(because: .tooLarge) }
        close(pipes.output.read)
        errorDone.wait()
        let status = Spawn.wait(pid) { child.ended() }.status
        switch child.killedBecause {
        case .tooLarge?: throw .outputTooLarge(bytes: limits.outputBytes)
        case .timedOut?: throw .timedOut(seconds: limits.seconds)
        case nil: return Outcome(status: status, output: outputBytes.bytes, error: errorBytes.bytes)
        }
    }

    /// Reads `fd` to its end into `bytes`, keeping what fits their limit; false once it is passed.
    /// Stopping at the limit leaves the rest unread; otherwise the rest is read and dropped, so a
    /// git that writes much to stderr never waits on a full pipe.
    private static func drain(_ fd: Int32, into bytes: Bytes, stoppingAtTheLimit: Bool) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 64 << 10), fits = true
        while true {
            let count = chunk.withUnsafeMutableBytes { buffer in (try? SystemCall.retrying { read(fd, buffer.baseAddress, buffer.count) }) ?? 0 }
            if count == 0 { return fits }
            if fits && !bytes.append(chunk[..<count]) {
                fits = false
                if stoppingAtTheLimit { return false }
            }
        }
    }

    /// The running git, killed at most once and never after it was reaped (its pid may be another's then).
    private final class Child: @unchecked Sendable {
        enum Reason { case timedOut, tooLarge }
        // Safe: every field is read and written under `lock`.
        private let lock = NSLock()
        private let pid: pid_t
        private var reaped = false, reason: Reason?
        init(pid: pid_t) { self.pid = pid }

        func stop(because reason: Reason) {
            lock.lock(); defer { lock.unlock() }
            guard !reaped, self.reason == nil else { return }
            self.reason = reason
            // Its whole process group (`Spawn` gives it one): a helper git started would otherwise
            // keep the pipes open, and the reads waiting, after git itself was killed.
            _ = kill(-pid, SIGKILL)
        }
        func ended() { lock.lock(); reaped = true; lock.unlock() }
        var killedBecause: Reason? { lock.lock(); defer { lock.unlock() }; return reason }
    }

    /// Bytes read from a pipe, up to a limit; `append` says false once it is passed.
    private final class Bytes: @unchecked Sendable {
        // Safe: appended by one thread, read only after that thread signalled it was done.
        private(set) var bytes: [UInt8] = []
        let limit: Int
        init(limit: Int) { self.limit = limit }
        @discardableResult
        func append(_ chunk: ArraySlice<UInt8>) -> Bool {
            guard bytes.count + chunk.count <= limit else { bytes += chunk.prefix(max(0, limit - bytes.count)); return false }
            bytes += chunk
            return true
        }
    }
}
