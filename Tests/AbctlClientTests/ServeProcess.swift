import Foundation
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `abctl serve` (the built binary, `ABCTL_BIN`) on 127.0.0.1 with a port it picks, the shipped
/// experiments and a fresh database in its own folder. Killed when released.
final class ServeProcess {
    let folder = TemporaryFolder(prefix: "abctl-client")
    private let process = Process()
    private(set) var port: UInt16 = 0
    var databasePath: String { folder.path + "/events.sqlite" }
    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    struct Failure: Error, CustomStringConvertible { var description: String }

    static let packageRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    /// `port` 0 lets the server pick one; a fixed port brings a server back where clients expect it.
    init(port requested: UInt16 = 0, arguments: [String] = []) throws {
        let experiments = folder.path + "/Experiments"
        try FileManager.default.copyItem(atPath: Self.packageRoot + "/Experiments", toPath: experiments)
        process.executableURL = URL(fileURLWithPath: AbctlBinary.path())
        process.arguments = ["serve", "--port", String(requested), "--db", databasePath, "--experiments", experiments] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["ABCTL_API_KEYS"] = nil
        process.environment = environment
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // The first stdout line says where it listens; a server that never says so is killed below.
        var seen = ""
        let deadline = Date().addingTimeInterval(20)
        while port == 0 && Date() < deadline && process.isRunning {
            let data = out.fileHandleForReading.availableData
            if data.isEmpty { break }
            seen += String(decoding: data, as: UTF8.self)
            if let line = seen.split(separator: "\n").first(where: { $0.contains("listening on http://") }),
               let p = line.split(separator: ":").last.flatMap({ UInt16($0.trimmingCharacters(in: .whitespaces)) }) {
                port = p
            }
        }
        guard port != 0 else {
            stop()
            throw Failure(description: "abctl serve did not start: \(seen)")
        }
    }

    deinit { stop() }

    /// Kills the server at once (SIGKILL), as a crash or a pulled cable would end it.
    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Rows of a query on the server's database, through Debian's sqlite3 (tab-separated).
    func query(_ sql: String) throws -> [[String]] {
        let sqlite = Process()
        sqlite.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        sqlite.arguments = ["-separator", "\t", databasePath, sql]
        let out = Pipe()
        sqlite.standardOutput = out
        try sqlite.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        sqlite.waitUntilExit()
        guard sqlite.terminationStatus == 0 else { throw Failure(description: "sqlite3 failed on: \(sql)") }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
    }
}

/// A loopback URL where nothing listens: a port the system handed out and that was closed again.
func unreachableURL() throws -> URL {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
    _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
    return URL(string: "http://127.0.0.1:\(UInt16(bigEndian: address.sin_port))")!
}
