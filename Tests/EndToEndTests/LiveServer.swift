import Foundation
import TestSupport
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A running `abctl serve` on 127.0.0.1 with a port picked by the server (port 0), its own
/// temporary experiments folder and database. Killed when released, if still running.
final class LiveServer {
    let folder = TemporaryFolder()
    let process = Process()
    private(set) var port: UInt16 = 0
    let stderrPath: String
    var experimentsPath: String { folder.path + "/Experiments" }
    let databasePath: String

    /// Whether this abctl was built with the event store (it then has `abctl ingest`); tests of
    /// the event routes need it.
    static let hasEventStore: Bool = (try? CLIRunner.run(["ingest", "--help"]).status) == 0

    /// Starts the server with the shipped experiments; `arguments` are added after the defaults.
    /// `database` reuses a store (e.g. one a killed server left); by default the server gets a fresh one.
    init(arguments: [String] = [], environment: [String: String] = [:], database: String? = nil,
         experiments: ((String) throws -> Void)? = nil) throws {
        databasePath = database ?? folder.path + "/events.sqlite"
        stderrPath = folder.path + "/stderr.log"
        try FileManager.default.createDirectory(atPath: folder.path + "/Experiments", withIntermediateDirectories: true)
        for name in try FileManager.default.contentsOfDirectory(atPath: CLIRunner.packageRoot + "/Experiments") {
            try FileManager.default.copyItem(atPath: CLIRunner.packageRoot + "/Experiments/" + name, toPath: experimentsPath + "/" + name)
        }
        try experiments?(experimentsPath)
        _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)

        process.executableURL = URL(fileURLWithPath: CLIRunner.binary)
        process.arguments = ["serve", "--port", "0", "--db", databasePath, "--experiments", experimentsPath] + arguments
        var env = ProcessInfo.processInfo.environment
        env["ABCTL_API_KEYS"] = nil
        env["ABCTL_REVENUECAT_AUTH"] = nil
        for (k, v) in environment { env[k] = v }
        process.environment = env
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle(forWritingAtPath: stderrPath)
        process.standardInput = FileHandle.nullDevice
        try process.run()

        // Read stdout until the "listening on" line; a watchdog kills a server that has not
        // printed it within 20 seconds, which ends the read.
        let started = Flag()
        let pid = process.processIdentifier
        let watchdog = Thread {
            usleep(20_000_000)
            if !started.value.load(ordering: .acquiring) { kill(pid, SIGKILL) }
        }
        watchdog.start()
        defer { started.value.store(true, ordering: .releasing) }
        let reader = out.fileHandleForReading
        var seen = ""
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline, process.isRunning || !seen.isEmpty {
            let data = reader.availableData
            if data.isEmpty { break }
            seen += String(decoding: data, as: UTF8.self)
            if let line = seen.split(separator: "\n").first(where: { $0.contains("listening on http://") }),
               let p = line.split(separator: ":").last.flatMap({ UInt16($0.trimmingCharacters(in: .whitespaces)) }) {
                port = p
                break
            }
        }
        guard port != 0 else {
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
            throw ServerFailedToStart(stdout: seen, stderr: stderr)
        }
    }

    struct ServerFailedToStart: Error, CustomStringConvertible {
        var stdout: String
        var stderr: String
        var description: String { "abctl serve did not start.\nstdout: \(stdout)\nstderr: \(stderr)" }
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    /// The structured log lines written so far, parsed.
    var logLines: [[String: Any]] {
        stderr.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    func signal(_ signal: Int32) { kill(process.processIdentifier, signal) }

    /// Waits for the process to exit; nil if it is still running after `timeout` seconds.
    func waitForExit(timeout: Double) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning {
            if Date() > deadline { return nil }
            usleep(10_000)
        }
        return process.terminationStatus
    }

    /// Polls `condition` until it holds or `timeout` seconds pass.
    func eventually(timeout: Double = 10, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try condition() { return true }
            usleep(20_000)
        }
        return try condition()
    }

    func connect() throws -> HTTPConnection { try HTTPConnection(port: port) }

    /// One request on a fresh connection.
    func request(_ method: String, _ path: String, headers: [String: String] = [:], body: String? = nil) throws -> HTTPReply {
        try connect().request(method, path, headers: headers, body: body.map { Array($0.utf8) })
    }
}

/// An HTTP/1.1 reply as read off the socket.
struct HTTPReply {
    var status: Int
    /// Header names lowercased.
    var headers: [String: String]
    var body: [UInt8]

    var text: String { String(decoding: body, as: UTF8.self) }
    var json: [String: Any]? { try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] }
    var error: [String: Any]? { json?["error"] as? [String: Any] }
    var errorCode: String? { error?["code"] as? String }
}

/// A minimal HTTP/1.1 client over a POSIX socket, so tests control keep-alive, partial sends and timing.
final class HTTPConnection {
    let fd: Int32
    private var buffer: [UInt8] = []

    struct Failure: Error, CustomStringConvertible { var description: String }

    init(port: UInt16, timeoutSeconds: Int = 30) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let r = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        // No close here: deinit closes fd (the object is whole once fd is set), and a second close
        // would close whatever socket another test opened with that number since.
        guard r == 0 else { throw Failure(description: "connect: errno \(errno)") }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    deinit { close(fd) }

    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw Failure(description: "send: errno \(errno)") }
            offset += n
        }
    }

    func send(_ text: String) throws { try send(Array(text.utf8)) }

    static func head(_ method: String, _ path: String, headers: [String: String], bodyLength: Int?) -> String {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for (k, v) in headers { head += "\(k): \(v)\r\n" }
        if let bodyLength { head += "Content-Length: \(bodyLength)\r\n" }
        return head + "\r\n"
    }

    func request(_ method: String, _ path: String, headers: [String: String] = [:], body: [UInt8]? = nil) throws -> HTTPReply {
        var bytes = Array(Self.head(method, path, headers: headers, bodyLength: body?.count ?? (method == "POST" ? 0 : nil)).utf8)
        if let body { bytes += body }
        try send(bytes)
        return try readReply()
    }

    /// Reads one reply; throws when the peer closed or the read timed out.
    func readReply() throws -> HTTPReply {
        var headerEnd: Int?
        while headerEnd == nil {
            if let i = find([13, 10, 13, 10]) { headerEnd = i; break }
            try fill()
        }
        let head = String(decoding: buffer[..<headerEnd!], as: UTF8.self)
        buffer.removeFirst(headerEnd! + 4)
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw Failure(description: "bad status line: \(head)") }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var body: [UInt8] = []
        if headers["transfer-encoding"]?.lowercased() == "chunked" {
            while true {
                var lineEnd: Int?
                while lineEnd == nil { lineEnd = find([13, 10]); if lineEnd == nil { try fill() } }
                let size = Int(String(decoding: buffer[..<lineEnd!], as: UTF8.self).split(separator: ";")[0], radix: 16) ?? 0
                buffer.removeFirst(lineEnd! + 2)
                while buffer.count < size + 2 { try fill() }
                body += buffer[..<size]
                buffer.removeFirst(size + 2)
                if size == 0 { break }
            }
        } else {
            let length = Int(headers["content-length"] ?? "0") ?? 0
            while buffer.count < length { try fill() }
            body = Array(buffer[..<length])
            buffer.removeFirst(length)
        }
        return HTTPReply(status: status, headers: headers, body: body)
    }

    /// True when the server has closed the connection (a read returns end of file) within `timeout` seconds.
    func waitForClose(timeout: Double) -> Bool {
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if poll(&pfd, 1, 50) > 0 {
                var byte: UInt8 = 0
                let n = recv(fd, &byte, 1, Int32(MSG_PEEK))
                if n == 0 { return true }
                if n < 0 { return errno == ECONNRESET }
                // Data (e.g. an error response) before the close: consume it and keep waiting.
                var sink = [UInt8](repeating: 0, count: 65536)
                _ = recv(fd, &sink, sink.count, 0)
            }
        }
        return false
    }

    private func find(_ pattern: [UInt8]) -> Int? {
        guard buffer.count >= pattern.count else { return nil }
        for i in 0...(buffer.count - pattern.count) where buffer[i] == pattern[0] && Array(buffer[i..<i + pattern.count]) == pattern { return i }
        return nil
    }

    private func fill() throws {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = recv(fd, &chunk, chunk.count, 0)
        if n == 0 { throw Failure(description: "the server closed the connection") }
        if n < 0 { throw Failure(description: "recv: errno \(errno)") }
        buffer += chunk[..<n]
    }
}

/// A flag shared with a watchdog thread.
final class Flag: Sendable {
    let value = Atomic<Bool>(false)
}
