import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A small OpenAI-compatible `/v1/chat/completions` endpoint on 127.0.0.1 for tests: each
/// request gets the next answer of a script (then `otherwise`), whatever its path.
///
/// Plain POSIX sockets with a thread of its own per connection: it needs neither Dispatch nor
/// Swift's shared pool, so tests that block waiting for a generated line cannot starve it.
public final class FakeChatServer: Sendable {
    public indirect enum Answer: Sendable {
        /// 200 with a chat completion whose message is `text`.
        case line(String)
        /// That HTTP status, with a JSON error body.
        case status(Int)
        /// 200 with a body that is not JSON.
        case garbage
        /// The answer, sent after this many milliseconds.
        case delayed(milliseconds: Int, Answer)
        /// That status with this JSON body (other vendors' endpoints: Google's token and Play APIs).
        case json(Int, String)
        /// That status (a 3xx) with a `Location` header.
        case redirect(Int, to: String)
    }

    /// A request as it arrived.
    public struct Request: Sendable {
        public var method: String
        public var path: String
        /// Names lowercased.
        public var headers: [String: String]
        public var body: [UInt8]

        public var json: [String: Any]? { try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] }
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    public let port: UInt16
    private let core: Core

    /// Answers each request with what `respond` makes of it (instead of a script).
    public convenience init(respond: @escaping @Sendable (Request) -> Answer) throws {
        try self.init([], otherwise: .status(500), respond: respond)
    }

    public init(_ script: [Answer] = [], otherwise: Answer = .status(500), respond: (@Sendable (Request) -> Answer)? = nil) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        guard bound == 0, listen(fd, 64) == 0 else {
            let code = errno
            close(fd)
            throw Failure(description: "bind/listen on 127.0.0.1: errno \(code)")
        }
        let named = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        guard named == 0 else {
            close(fd)
            throw Failure(description: "getsockname: errno \(errno)")
        }
        port = UInt16(bigEndian: address.sin_port)
        core = Core(listener: fd, script: script, otherwise: otherwise, respond: respond)
        let core = self.core
        Thread { core.acceptLoop() }.start()
    }

    deinit { core.stop() }

    /// `http://127.0.0.1:PORT`, the value for `--llm-url`.
    public var url: String { "http://127.0.0.1:\(port)" }

    /// Every request so far, in arrival order.
    public var requests: [Request] { core.received.withLock { $0 } }

    /// Polls until `count` requests have arrived or `timeout` seconds pass.
    public func waitForRequests(_ count: Int, timeout: Double = 10) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while requests.count < count {
            if Date() > deadline { return false }
            usleep(10_000)
        }
        return true
    }

    /// Stops accepting; answers already being written still go out.
    public func stop() { core.stop() }

    /// What the threads share; outlives the `FakeChatServer` until the accept loop ends.
    private final class Core: Sendable {
        let listener: Int32
        let script: Mutex<[Answer]>
        let otherwise: Answer
        let respond: (@Sendable (Request) -> Answer)?
        let received = Mutex<[Request]>([])
        let stopped = Atomic<Bool>(false)

        init(listener: Int32, script: [Answer], otherwise: Answer, respond: (@Sendable (Request) -> Answer)?) {
            self.listener = listener
            self.respond = respond
            self.script = Mutex(script)
            self.otherwise = otherwise
        }

        func stop() {
            // shutdown wakes the thread blocked in accept, which then closes the socket itself.
            if !stopped.exchange(true, ordering: .acquiringAndReleasing) { shutdown(listener, Int32(SHUT_RDWR)) }
        }

        func acceptLoop() {
            defer { close(listener) }
            while !stopped.load(ordering: .acquiring) {
                let connection = accept(listener, nil, nil)
                if connection < 0 {
                    if errno == EINTR || errno == ECONNABORTED { continue }
                    return
                }
                Thread { self.serve(connection) }.start()
            }
        }

        private func serve(_ fd: Int32) {
            defer { close(fd) }
            var timeout = timeval(tv_sec: 10, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            guard let request = readRequest(fd) else { return }
            received.withLock { $0.append(request) }
            var answer = respond?(request) ?? script.withLock { $0.isEmpty ? otherwise : $0.removeFirst() }
            while case .delayed(let milliseconds, let then) = answer {
                usleep(UInt32(milliseconds) * 1000)
                answer = then
            }
            send(fd, Self.response(answer))
        }

        /// Request line, headers and a `Content-Length` body; nil when the peer goes away first.
        private func readRequest(_ fd: Int32) -> Request? {
            var buffer: [UInt8] = []
            var headerEnd: Int?
            while headerEnd == nil {
                guard read(fd, into: &buffer) else { return nil }
                headerEnd = Self.find([13, 10, 13, 10], in: buffer)
            }
            let head = String(decoding: buffer[..<headerEnd!], as: UTF8.self)
            var lines = head.components(separatedBy: "\r\n")
            let requestLine = lines.removeFirst().split(separator: " ")
            guard requestLine.count >= 2 else { return nil }
            var headers: [String: String] = [:]
            for line in lines {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
            if headers["expect"]?.lowercased() == "100-continue" { send(fd, Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)) }
            let length = Int(headers["content-length"] ?? "0") ?? 0
            var body = Array(buffer[(headerEnd! + 4)...])
            while body.count < length {
                guard read(fd, into: &body) else { return nil }
            }
            return Request(method: String(requestLine[0]), path: String(requestLine[1]), headers: headers, body: Array(body.prefix(length)))
        }

        private func read(_ fd: Int32, into buffer: inout [UInt8]) -> Bool {
            var chunk = [UInt8](repeating: 0, count: 16384)
            let n = recv(fd, &chunk, chunk.count, 0)
            guard n > 0 else { return false }
            buffer += chunk[..<n]
            return true
        }

        private func send(_ fd: Int32, _ bytes: [UInt8]) {
            var offset = 0
            while offset < bytes.count {
                // MSG_NOSIGNAL: a client that gave up on a slow answer must not kill the test with SIGPIPE.
                let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
                guard n > 0 else { return }
                offset += n
            }
        }

        private static func find(_ pattern: [UInt8], in buffer: [UInt8]) -> Int? {
            guard buffer.count >= pattern.count else { return nil }
            return (0...(buffer.count - pattern.count)).first { buffer[$0..<$0 + pattern.count].elementsEqual(pattern) }
        }

        static func response(_ answer: Answer) -> [UInt8] {
            let status: Int, body: [UInt8]
            switch answer {
            case .line(let text):
                let completion: [String: Any] = [
                    "id": "chatcmpl-fake", "object": "chat.completion", "model": "fake",
                    "choices": [["index": 0, "message": ["role": "assistant", "content": text], "finish_reason": "stop"]],
                ]
                status = 200
                body = [UInt8]((try? JSONSerialization.data(withJSONObject: completion)) ?? Data())
            case .status(let code):
                status = code
                body = Array(#"{"error":{"message":"the fake model failed on purpose"}}"#.utf8)
            case .garbage:
                status = 200
                body = Array("<html>not a chat completion{".utf8)
            case .delayed(_, let then):
                return response(then)
            case .json(let code, let text):
                status = code
                body = Array(text.utf8)
            case .redirect(let code, let location):
                let head = "HTTP/1.1 \(code) Moved\r\nLocation: \(location)\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                return Array(head.utf8)
            }
            let head = "HTTP/1.1 \(status) \(status == 200 ? "OK" : "Error")\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n"
            return Array(head.utf8) + body
        }
    }
}
