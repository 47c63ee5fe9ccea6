import Foundation
import Synchronization
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

extension ServeProcess {
    func connect() throws -> HTTPConnection { try HTTPConnection(port: port) }

    /// One request on a fresh connection, on a thread of its own: a reply that is slow to come
    /// holds that thread, not one of the test pool's.
    func request(_ method: String, _ path: String, headers: [String: String] = [:], body: String? = nil) async throws -> HTTPReply {
        let port = self.port
        do {
            return try await onOwnThread { try HTTPConnection(port: port).request(method, path, headers: headers, body: body.map { Array($0.utf8) }) }
        } catch {
            // A refused connection usually means the server ended: say how, with its last words.
            let state = exitStatus.map { "ended with status \($0)" } ?? "still running"
            throw HTTPConnection.Failure(description: "\(method) \(path): \(error); the server (pid \(pid)) is \(state); its stderr ends: \(stderr.suffix(2000))")
        }
    }
}

/// An HTTP/1.1 reply as read off the socket.
struct HTTPReply: Sendable {
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
        // No close here: deinit closes fd, and a second close would close whatever socket reused the number.
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

/// A flag shared with threads a test starts.
final class Flag: Sendable {
    let value = Atomic<Bool>(false)
}
