import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `abctl serve` on 127.0.0.1 at a port it picks (or the one asked for, to bring a server back
/// where clients expect it), with a copy of the shipped experiments and a fresh database in a
/// folder of its own unless told otherwise. Killed when released.
public final class ServeProcess: Sendable {
    public let child: ChildProcess
    public let folder: TemporaryFolder
    public let port: UInt16
    public let databasePath: String
    public var experimentsPath: String { folder.path + "/Experiments" }
    public var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    public struct FailedToStart: Error, CustomStringConvertible {
        public var stdout: String
        public var stderr: String
        public var description: String { "abctl serve did not start.\nstdout: \(stdout)\nstderr: \(stderr)" }
    }

    private init(child: ChildProcess, folder: TemporaryFolder, port: UInt16, databasePath: String) {
        self.child = child
        self.folder = folder
        self.port = port
        self.databasePath = databasePath
    }

    /// Starts the server and returns once it says where it listens. `arguments` follow the
    /// defaults; `database` reuses a store (e.g. one a killed server left); `experiments` may
    /// change the copied experiments folder (its path) before the server reads it. The shipped global
    /// holdout is left out unless `withHoldout`: it holds out 10% of every user, which the server tests
    /// (sticky records, counts, two nodes) do not expect; holdouts have tests of their own.
    public static func start(arguments: [String] = [], environment: [String: String] = [:], database: String? = nil, port: UInt16 = 0,
                             withHoldout: Bool = false, experiments: ((String) throws -> Void)? = nil) async throws -> ServeProcess {
        let folder = TemporaryFolder(prefix: "abctl-serve")
        let experimentsPath = folder.path + "/Experiments"
        try FileManager.default.createDirectory(atPath: experimentsPath, withIntermediateDirectories: true)
        try Abctl.copyShippedExperiments(to: experimentsPath, except: withHoldout ? [] : ["chorus-holdout.json"])
        try experiments?(experimentsPath)
        let databasePath = database ?? folder.path + "/events.sqlite"
        // Keys and secrets of the shell that runs the tests would change what the server accepts.
        var env = ProcessInfo.processInfo.environment
        env["ABCTL_API_KEYS"] = nil
        env["ABCTL_REVENUECAT_AUTH"] = nil
        env.merge(environment) { $1 }
        let child = try ChildProcess(Abctl.path, ["serve", "--port", String(port), "--db", databasePath, "--experiments", experimentsPath] + arguments,
                                     environment: env)
        let listening = await child.firstLine(within: .seconds(30)) { line -> UInt16? in
            guard line.contains("listening on http://") else { return nil }
            return line.split(separator: ":").last.flatMap { UInt16($0.trimmingCharacters(in: .whitespaces)) }
        }
        guard let listening else {
            await child.stop()
            throw FailedToStart(stdout: child.stdout, stderr: child.stderr)
        }
        return ServeProcess(child: child, folder: folder, port: listening, databasePath: databasePath)
    }

    public var stderr: String { child.stderr }
    public var isRunning: Bool { child.isRunning }
    /// Nil while it runs; then its exit status (for a killed process, the signal's number).
    public var exitStatus: Int32? { child.exitStatus }
    public var pid: Int32 { child.pid }

    /// The structured log lines written so far, parsed.
    public var logLines: [[String: Any]] {
        stderr.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    public func signal(_ signal: Int32) { child.signal(signal) }

    /// Kills the server at once (SIGKILL), as a crash or a pulled cable would end it.
    public func stop() async { await child.stop() }

    /// The exit status if the server ends within `limit`; nil while it still runs.
    public func exit(within limit: Duration) async -> Int32? { await child.exit(within: limit) }

    /// Rows of a query on the server's SQLite database, through Debian's sqlite3 (tab-separated).
    public func query(_ sql: String) async throws -> [[String]] {
        let out = try await ChildProcess.run("/usr/bin/sqlite3", ["-separator", "\t", databasePath, sql])
        guard out.status == 0 else { throw QueryFailed(description: "sqlite3 failed on: \(sql): \(out.stderr)") }
        return out.stdout.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
    }

    struct QueryFailed: Error, CustomStringConvertible { var description: String }
}

/// Polls `condition` (without holding a thread) until it holds or `limit` passes; true if it held.
public func eventually(within limit: Duration = .seconds(30), _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + limit
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return try await condition()
}
