import Foundation
import Synchronization
import SystemCall

/// A throwaway PostgreSQL cluster for tests: `initdb` into a temporary folder, a server on a
/// free loopback port (and a socket in that folder), stopped and removed when the test process
/// exits (also when tests fail; a watchdog stops it if the process is killed).
///
/// One cluster serves the whole test process (`shared()`); each test makes its own database
/// (`createDatabase()`). As root, the server runs as the `postgres` user (initdb refuses root).
/// Host connections need the password (`url(database:password:)` can pass a wrong one);
/// the socket trusts local users, for the admin commands here.
public final class PostgresCluster: Sendable {
    public let directory: String
    public let port: Int
    public let password = "abctl-test-secret"
    let binaries: String
    private let databaseCounter = Mutex(0)

    private static let started = Result { try PostgresCluster() }

    /// The process's cluster, started on first use.
    public static func shared() throws -> PostgresCluster { try started.get() }

    /// A cluster of the caller's own, for tests that stop and restart the server; `remove()` it.
    public static func startOwn() throws -> PostgresCluster { try PostgresCluster() }

    /// Stops the server at once and deletes its folder.
    public func remove() {
        _ = try? Self.run(binaries + "/pg_ctl", ["-D", directory + "/data", "-w", "-m", "immediate", "stop"], asPostgres: true)
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// `postgresql://postgres:PASSWORD@127.0.0.1:PORT/DATABASE`.
    public func url(database: String, password: String? = nil) -> String {
        "postgresql://postgres:\(password ?? self.password)@127.0.0.1:\(port)/\(database)"
    }

    /// A new empty database; returns its URL.
    public func createDatabase(prefix: String = "t") throws -> String {
        let name = databaseCounter.withLock { n -> String in
            n += 1
            return "\(prefix)_\(getpid())_\(n)"
        }
        try psql("CREATE DATABASE \(name)")
        return url(database: name)
    }

    /// Runs SQL through `psql` on the socket, as the `postgres` role.
    @discardableResult
    public func psql(_ sql: String, database: String = "postgres") throws -> String {
        try Self.run(binaries + "/psql", ["-X", "-q", "-t", "-A", "-v", "ON_ERROR_STOP=1", "-h", directory, "-p", String(port),
                                           "-U", "postgres", "-d", database, "-c", sql], asPostgres: false)
    }

    /// Stops the server (fast shutdown); `start()` brings it back on the same port.
    public func stop() throws {
        try Self.run(binaries + "/pg_ctl", ["-D", directory + "/data", "-w", "-m", "fast", "stop"], asPostgres: true)
    }

    public func start() throws {
        try Self.run(binaries + "/pg_ctl", ["-D", directory + "/data", "-w", "-l", directory + "/server.log", "-o",
                                             "-p \(port) -k \(directory) -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=300",
                                             "start"], asPostgres: true)
    }

    private init() throws {
        let candidates = ["/usr/lib/postgresql/15/bin", "/usr/lib/postgresql/16/bin", "/usr/lib/postgresql/17/bin"]
        guard let bin = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0 + "/initdb") }) else {
            throw ClusterError("no PostgreSQL server binaries in /usr/lib/postgresql/*/bin (make test installs Debian's postgresql)")
        }
        binaries = bin
        var template = Array("/tmp/abctl-pg-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw ClusterError("mkdtemp failed") }
        directory = String(cString: made)
        port = try Self.freePort()
        let pwfile = directory + "/pwfile"
        try password.write(toFile: pwfile, atomically: true, encoding: .utf8)
        if getuid() == 0 {
            // The server runs as `postgres`: it needs the folder (and the password file) as its own.
            try Self.run("/bin/chown", ["-R", "postgres:postgres", directory], asPostgres: false)
        }
        try Self.run(bin + "/initdb", ["-D", directory + "/data", "-U", "postgres", "--pwfile=\(pwfile)", "--auth-local=trust",
                                       "--auth-host=scram-sha-256", "-E", "UTF8", "--locale=C", "--no-sync"], asPostgres: true)
        try start()
        Self.watch(directory: directory, binaries: bin)
    }

    /// Stops the server and removes the folder when this process exits or dies: a shell that
    /// polls for the process, plus an `atexit` handler for the ordinary exit.
    private static func watch(directory: String, binaries: String) {
        let stop = "\(binaries)/pg_ctl -D \(directory)/data -w -m immediate stop >/dev/null 2>&1"
        let asPostgres = getuid() == 0 ? "runuser -u postgres -- \(stop)" : stop
        let script = "while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done; \(asPostgres); rm -rf \(directory)"
        // Reaped by a thread of its own (setsid forks when its process is a group leader, and returns).
        if let pid = try? Spawn.start("/usr/bin/setsid", ["/bin/sh", "-c", script], environment: ProcessInfo.processInfo.environment, stdout: .path("/dev/null")) {
            Thread.detachNewThread { _ = Spawn.wait(pid) }
        }
        atexit {
            guard case .success(let cluster) = PostgresCluster.started else { return }
            _ = try? PostgresCluster.run(cluster.binaries + "/pg_ctl", ["-D", cluster.directory + "/data", "-w", "-m", "immediate", "stop"], asPostgres: true)
            try? FileManager.default.removeItem(atPath: cluster.directory)
        }
    }

    /// Runs a program to completion on the calling thread and returns its output (stdout and
    /// stderr in one); a failure throws with that output.
    @discardableResult
    static func run(_ executable: String, _ arguments: [String], asPostgres: Bool) throws -> String {
        let argv = asPostgres && getuid() == 0 ? ["/usr/sbin/runuser", "-u", "postgres", "--", executable] + arguments
                                                : [executable] + arguments
        let outputPath = NSTemporaryDirectory() + "abctl-pg-run-\(UUID().uuidString).log"
        defer { unlink(outputPath) }
        // `Spawn` leaves nothing else of this process open in it: `pg_ctl start` leaves a server
        // running that would keep any pipe open at that moment (another test's abctl stdin) open,
        // and that abctl would wait for the end of its input forever.
        let pid = try Spawn.start(argv[0], Array(argv.dropFirst()), environment: ProcessInfo.processInfo.environment, stdout: .path(outputPath))
        let (status, bySignal) = Spawn.wait(pid)
        let text = (FileManager.default.contents(atPath: outputPath).map { String(decoding: $0, as: UTF8.self) } ?? "")
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let exitCode = bySignal ? 128 + status : status
        guard exitCode == 0 else {
            throw ClusterError("\((executable as NSString).lastPathComponent) \(arguments.joined(separator: " ")) failed (\(exitCode)): \(text)")
        }
        return text
    }

    /// A loopback port nobody listens on right now.
    private static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ClusterError("socket failed") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw ClusterError("bind failed") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    public struct ClusterError: Error, CustomStringConvertible {
        public var description: String
        init(_ description: String) { self.description = description }
    }
}
