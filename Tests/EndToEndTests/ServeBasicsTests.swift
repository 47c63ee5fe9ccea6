import Foundation
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `abctl serve` on 127.0.0.1: what needs the transport (keep-alive, pipelining, limits, slow
/// clients) and the request log; the endpoints' answers are checked in process in
/// ServerTests/InProcess/APIBasicsTests.
@Suite(.timeLimit(.minutes(2)))
struct ServeBasicsTests {
    @Test func healthzAndKeepAlive() async throws {
        let server = try await ServeProcess.start()
        let connection = try server.connect()
        for _ in 0..<5 {
            let reply = try connection.request("GET", "/healthz")
            #expect(reply.status == 200)
            #expect(reply.headers["connection"]?.lowercased() != "close")
            #expect(reply.json?["status"] as? String == "ok")
            #expect(reply.json?["experiments"] as? Int == 4)
        }
        // POST with a body on the same connection too.
        for _ in 0..<3 {
            let reply = try connection.request("POST", "/v1/copy/check",
                body: Array(#"{"experiment":"chorus-paywall-copy","variant":"ai","text":"Chorus names every bird"}"#.utf8))
            #expect(reply.status == 200)
        }
        // Ten requests sent at once (pipelined) are all answered, in order, on the one connection.
        try connection.send(String(repeating: HTTPConnection.head("GET", "/healthz", headers: [:], bodyLength: nil), count: 10))
        for _ in 0..<10 { #expect(try connection.readReply().status == 200) }
    }

    @Test func bodiesOverTheLimitGet413() async throws {
        let server = try await ServeProcess.start(arguments: ["--max-body", "1000"])
        let big = String(repeating: "x", count: 2500)
        // Declared length over the limit: refused before the body is read.
        let declared = try await server.request("POST", "/v1/copy/check", body: #"{"experiment":"\#(big)"}"#)
        #expect(declared.status == 413)
        #expect(declared.errorCode == "body_too_large")
        // Chunked, so the length is only known while reading.
        let connection = try server.connect()
        let body = Array(#"{"experiment":"\#(big)"}"#.utf8)
        var chunked = HTTPConnection.head("POST", "/v1/copy/check", headers: ["Transfer-Encoding": "chunked"], bodyLength: nil)
        for piece in stride(from: 0, to: body.count, by: 700) {
            let part = body[piece..<min(piece + 700, body.count)]
            chunked += String(part.count, radix: 16) + "\r\n" + String(decoding: part, as: UTF8.self) + "\r\n"
        }
        chunked += "0\r\n\r\n"
        try connection.send(chunked)
        let reply = try connection.readReply()
        #expect(reply.status == 413)
        #expect(reply.errorCode == "body_too_large")
        // Under the limit still works.
        let small = try await server.request("POST", "/v1/copy/check", body: #"{"experiment":"chorus-paywall-copy","variant":"ai","text":"Chorus"}"#)
        #expect(small.status == 200)
    }

    @Test func oversizedHeadersAreRefused() async throws {
        let server = try await ServeProcess.start()
        // Just under the limit: answered.
        #expect(try await server.request("GET", "/healthz", headers: ["X-Big": String(repeating: "a", count: 7_500)]).status == 200)
        // Over the server's 8 KiB limit: its own JSON 431.
        let over = try await server.request("GET", "/healthz", headers: ["X-Big": String(repeating: "a", count: 10_000)])
        #expect(over.status == 431)
        #expect(over.errorCode == "headers_too_large")
        #expect(over.headers["content-type"] == "application/json")
        // Far past it, libmicrohttpd refuses before the handler runs (see docs/Server.md).
        let reply = try await server.request("GET", "/healthz", headers: ["X-Big": String(repeating: "a", count: 200_000)])
        #expect(reply.status == 431 || reply.status == 413)
        // The server is still fine afterwards.
        #expect(try await server.request("GET", "/healthz").status == 200)
    }

    @Test func silentAndSlowClientsAreCutOff() async throws {
        let server = try await ServeProcess.start(arguments: ["--timeout", "1", "--header-timeout", "1", "--body-timeout", "1"])
        // Half a request line, then silence.
        let silent = try server.connect()
        try silent.send("GET /heal")
        #expect(silent.waitForClose(timeout: 5))
        // A body that trickles in slower than the body deadline allows (1 s, plus 100 bytes at 16 KiB/s).
        let slow = try server.connect()
        try slow.send(HTTPConnection.head("POST", "/v1/copy/check", headers: [:], bodyLength: 100))
        var closed = false
        for _ in 0..<40 where !closed {
            try? slow.send("x")
            try await Task.sleep(for: .milliseconds(100))
            closed = slow.waitForClose(timeout: 0.05)
        }
        #expect(closed)
        #expect(try await server.request("GET", "/healthz").status == 200)
    }

    @Test func connectionLimitRefusesExtraClientsAtOnce() async throws {
        let server = try await ServeProcess.start(arguments: ["--max-connections", "2"])
        var held = [try server.connect(), try server.connect()]
        #expect(try held[0].request("GET", "/healthz").status == 200)
        #expect(try held[1].request("GET", "/healthz").status == 200)
        // A third client is closed on arrival rather than left waiting in the kernel's queue.
        let third = try HTTPConnection(port: server.port, timeoutSeconds: 5)
        let started = Date()
        try? third.send(HTTPConnection.head("GET", "/healthz", headers: [:], bodyLength: nil))
        #expect((try? third.readReply()) == nil)
        #expect(Date().timeIntervalSince(started) < 1)
        // Freeing a slot lets the next one in.
        held.removeFirst()
        #expect(await eventually(within: .seconds(5)) { (try? await server.request("GET", "/healthz"))?.status == 200 })
    }

    @Test func concurrentClients() async throws {
        let server = try await ServeProcess.start()
        let port = server.port
        let failures = Failures()
        // On a thread of its own: concurrentPerform holds the calling thread until every client is done.
        try await onOwnThread {
            DispatchQueue.concurrentPerform(iterations: 16) { client in
                do {
                    let connection = try HTTPConnection(port: port)
                    for i in 0..<50 {
                        let reply = try connection.request("POST", "/v1/copy/check",
                            body: Array(#"{"experiment":"chorus-paywall-copy","variant":"ai","text":"Chorus \#(client) \#(i)"}"#.utf8))
                        if reply.status != 200 || reply.json?["accepted"] as? Bool != true { failures.add("client \(client) request \(i): \(reply.status) \(reply.text)") }
                    }
                } catch {
                    failures.add("client \(client): \(error)")
                }
            }
        }
        #expect(failures.all.isEmpty, "\(failures.all.prefix(5))")
        let metrics = try await server.request("GET", "/metrics").text
        #expect(metrics.contains(#"abctl_http_requests_total{route="/v1/copy/check",method="POST",status="200"} 800"#), "\(metrics)")
    }

    @Test func metricsAndRequestLogs() async throws {
        let server = try await ServeProcess.start()
        _ = try await server.request("GET", "/healthz")
        _ = try await server.request("GET", "/nothing")
        let reply = try await server.request("GET", "/metrics")
        #expect(reply.status == 200)
        #expect(reply.headers["content-type"]?.hasPrefix("text/plain") == true)
        let text = reply.text
        #expect(text.contains(#"abctl_http_requests_total{route="/healthz",method="GET",status="200"} 1"#))
        #expect(text.contains(#"abctl_http_requests_total{route="unmatched",method="GET",status="404"} 1"#))
        #expect(text.contains(#"abctl_http_request_duration_seconds_bucket{route="/healthz",le="+Inf"} 1"#))
        #expect(text.contains("# TYPE abctl_http_request_duration_seconds histogram"))
        #expect(text.contains(#"abctl_events_total{outcome="stored"} "#))
        #expect(text.contains(#"abctl_reloads_total{result="ok"} 0"#))
        #expect(text.contains("abctl_experiments_loaded 4"))
        // One JSON line per request on stderr (flushed within 100 ms).
        #expect(await eventually { server.logLines.contains { $0["msg"] as? String == "request" && $0["path"] as? String == "/nothing" && $0["status"] as? Int == 404 } })
        let requestLines = server.logLines.filter { $0["msg"] as? String == "request" }
        #expect(requestLines.contains { $0["path"] as? String == "/healthz" && $0["route"] as? String == "/healthz" && $0["status"] as? Int == 200 })
        #expect(requestLines.contains { $0["path"] as? String == "/nothing" && $0["route"] as? String == "unmatched" })
        #expect(requestLines.allSatisfy { $0["ts"] is String && $0["method"] is String && $0["route"] is String && $0["duration_ms"] is Double || $0["duration_ms"] is Int })
    }
}

/// Thread-safe list of failure messages for concurrent tests.
final class Failures: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [String] = []
    func add(_ s: String) { lock.lock(); items.append(s); lock.unlock() }
    var all: [String] { lock.lock(); defer { lock.unlock() }; return items }
}
