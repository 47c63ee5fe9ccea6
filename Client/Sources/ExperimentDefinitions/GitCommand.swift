import Foundation

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
        let process = Process()
        process.executableURL = URL(fileURLWithPath: git)
        process.arguments = ["-C", folder] + arguments
        // Never a prompt for credentials or an editor, and no lock taken only to refresh the index.
        var environment = ProcessInfo.processInfo.environment
        environment["GIT_TERMINAL_PROMPT"] = "0"
        environment["GIT_OPTIONAL_LOCKS"] = "0"
        process.environment = environment
        let stdout = Pipe(), stderr = Pipe(), stdin = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = input == nil ? FileHandle.nullDevice : stdin
        do { try process.run() } catch { throw .cannotStart(error.localizedDescription) }
        // Written from another thread: a large answer would otherwise fill the output pipe while we still write.
        if let input {
            let writer = stdin.fileHandleForWriting, data = Data(input)
            Thread.detachNewThread {
                try? writer.write(contentsOf: data)
                try? writer.close()
            }
        }
        let killed = Flags()
        let pid = process.processIdentifier
        let deadline = DispatchWorkItem {
            killed.set(timedOut: true)
            kill(pid, SIGKILL)
        }
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + limits.seconds, execute: deadline)
        let errorReader = stderr.fileHandleForReading
        let errorBytes = Bytes(limit: 64 << 10)
        let errorDone = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            while case let chunk = errorReader.availableData, !chunk.isEmpty { errorBytes.append(chunk) }
            errorDone.signal()
        }
        let outputBytes = Bytes(limit: limits.outputBytes)
        let reader = stdout.fileHandleForReading
        while case let chunk = reader.availableData, !chunk.isEmpty {
            if !outputBytes.append(chunk) {
                killed.set(tooLarge: true)
                kill(pid, SIGKILL)
                break
            }
        }
        try? reader.close()
        errorDone.wait()
        process.waitUntilExit()
        deadline.cancel()
        if killed.tooLarge { throw .outputTooLarge(bytes: limits.outputBytes) }
        if killed.timedOut { throw .timedOut(seconds: limits.seconds) }
        return Outcome(status: process.terminationStatus, output: outputBytes.bytes, error: errorBytes.bytes)
    }

    /// Bytes read from a pipe, up to a limit; `append` says false once it is passed.
    private final class Bytes: @unchecked Sendable {
        // Safe: appended by one thread, read only after that thread signalled it was done.
        private(set) var bytes: [UInt8] = []
        let limit: Int
        init(limit: Int) { self.limit = limit }
        @discardableResult
        func append(_ data: Data) -> Bool {
            guard bytes.count + data.count <= limit else { bytes += data.prefix(max(0, limit - bytes.count)); return false }
            bytes += data
            return true
        }
    }

    /// Why the run was killed, set from the deadline's thread or the reader.
    private final class Flags: @unchecked Sendable {
        private let lock = NSLock()
        private var _timedOut = false, _tooLarge = false
        func set(timedOut: Bool = false, tooLarge: Bool = false) {
            lock.lock(); defer { lock.unlock() }
            _timedOut = _timedOut || timedOut
            _tooLarge = _tooLarge || tooLarge
        }
        var timedOut: Bool { lock.lock(); defer { lock.unlock() }; return _timedOut }
        var tooLarge: Bool { lock.lock(); defer { lock.unlock() }; return _tooLarge }
    }
}
