import Foundation
import TestSupport
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `abctl serve` against slow and hostile clients by the thousand: trickled heads are cut
/// at their deadline with a 408 while others are served, idle keep-alive connections cost no thread,
/// clients that never read are cut, a body over the limit gets a 413 its writer can read, and
/// connections over a limit are refused at once. Every test is bounded and stops by itself.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct ServeSlowClientsTests {
    /// What one trickling connection saw.
    struct Outcome: Sendable {
        var opened: Double
        var firstBytes: [UInt8] = []
        var closedAt: Double?
    }

    /// Shared between the test's thread and the trickler.
    final class Trickle: Sendable {
        let outcomes: Mutex<[Int32: Outcome]>
        let done = Atomic<Bool>(false)
        init(_ outcomes: [Int32: Outcome]) { self.outcomes = Mutex(outcomes) }
    }

    @Test func tricklingHeadsAreCutAtTheDeadlineWhileOthersAreServed() async throws {
        let count = 2_000, deadline = 2.0
        #expect(RawClients.raiseFileLimit(atLeast: count + 512))
        let server = try await ServeProcess.start(arguments: ["--header-timeout", String(deadline)])
        let clock: @Sendable () -> Double = { Monotonic.now() }
        var outcomes: [Int32: Outcome] = [:]
        for _ in 0..<count {
            guard let fd = RawClients.connect(port: server.port) else { continue }
            outcomes[fd] = Outcome(opened: clock())
            RawClients.send(fd, "POST /v1/assign HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        }
        #expect(outcomes.count == count)

        // One thread keeps every connection trickling (a header line each 300 ms) and notes what
        // each receives and when the server closes it; the test's thread meanwhile is a normal client.
        let trickle = Trickle(outcomes)
        let trickler = Thread {
            var chunk = [UInt8](repeating: 0, count: 4096)
            var nextLine = clock() + 0.3
            let stopAt = clock() + deadline + 6
            while clock() < stopAt {
                let open = trickle.outcomes.withLock { $0.filter { $0.value.closedAt == nil }.map(\.key) }
                if open.isEmpty { break }
                var polls = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
                _ = poll(&polls, nfds_t(polls.count), 50)
                let now = clock()
                for p in polls where p.revents != 0 {
                    let n = recv(p.fd, &chunk, chunk.count, Int32(MSG_DONTWAIT))
                    trickle.outcomes.withLock { all in
                        if n > 0 {
                            if all[p.fd]!.firstBytes.isEmpty { all[p.fd]!.firstBytes = Array(chunk[..<n]) }
                        } else if n == 0 || errno != EAGAIN {
                            all[p.fd]!.closedAt = now
                        }
                    }
                }
                if now >= nextLine {
                    nextLine += 0.3
                    for fd in open { RawClients.send(fd, "X-Slow: 1\r\n") }
                }
            }
            trickle.done.store(true, ordering: .releasing)
        }
        trickler.start()

        var latencies: [Double] = [], failures = 0, i = 0
        let normalUntil = clock() + deadline + 1
        while clock() < normalUntil {
            i += 1
            if let seconds = RawClients.timedAssign(port: server.port, id: i) { latencies.append(seconds) } else { failures += 1 }
            try await Task.sleep(for: .milliseconds(10))
        }
        while !trickle.done.load(ordering: .acquiring) { try await Task.sleep(for: .milliseconds(50)) }
        outcomes = trickle.outcomes.withLock { $0 }
        for fd in outcomes.keys { close(fd) }

        let p99 = RawClients.percentile(latencies, 0.99)
        #expect(failures == 0)
        // Enough normal requests for their worst latency to mean something; how many fit in the window
        // depends on the machine's load (about 100 when idle, 25 at a load of 12 on two cores).
        #expect(latencies.count >= 20)
        #expect(p99 < 0.050, "normal assign p99 \(p99 * 1000) ms with \(count) trickling connections")
        let answered = outcomes.values.filter { String(decoding: $0.firstBytes, as: UTF8.self).hasPrefix("HTTP/1.1 408") }
        #expect(answered.count == count)
        #expect(outcomes.values.allSatisfy { String(decoding: $0.firstBytes, as: UTF8.self).contains(#""code":"request_timeout""#) })
        let lifetimes = outcomes.values.compactMap { o in o.closedAt.map { $0 - o.opened } }
        #expect(lifetimes.count == count)
        // Cut at the deadline: not before it, and within a generous second and a half after it (the
        // watch looks every 100 ms; the machine may be busy).
        #expect((lifetimes.min() ?? 0) >= deadline - 0.05, "earliest cut after \(lifetimes.min() ?? 0) s")
        #expect((lifetimes.max() ?? .infinity) <= deadline + 1.5, "latest cut after \(lifetimes.max() ?? 0) s")
        let metrics = try await server.request("GET", "/metrics").text
        #expect(RawClients.metric(metrics, #"abctl_http_connections_timed_out_total{phase="head"}"#) == Double(count))
        print("trickle: \(count) connections cut after \(lifetimes.min() ?? 0)-\(lifetimes.max() ?? 0) s; normal assign p50 \(RawClients.percentile(latencies, 0.5) * 1000) ms, p99 \(p99 * 1000) ms over \(latencies.count) calls")
    }

    @Test func slowBodiesAndKeptAliveTricklesAreCutToo() async throws {
        let server = try await ServeProcess.start(arguments: ["--header-timeout", "1", "--body-timeout", "1", "--min-rate", "1000"])
        // A body of 500 bytes may take 1 s + 500 B at 1000 B/s: a byte every 200 ms is too slow.
        let slowBody = try #require(RawClients.connect(port: server.port))
        defer { close(slowBody) }
        RawClients.send(slowBody, "POST /v1/copy/check HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 500\r\n\r\n")
        // A kept-alive connection answers one request, then trickles the next head.
        let keptAlive = try #require(RawClients.connect(port: server.port))
        defer { close(keptAlive) }
        RawClients.send(keptAlive, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        #expect(Self.readOneReply(keptAlive, timeout: 5)?.hasPrefix("HTTP/1.1 200") == true)
        let started = Monotonic.now()
        var bodyReply: [UInt8] = [], trickleReply: [UInt8] = []
        var bodyClosed: Double?, trickleClosed: Double?
        RawClients.send(keptAlive, "GET /healthz HTTP/1.1\r\n")
        while Monotonic.now() - started < 6, bodyClosed == nil || trickleClosed == nil {
            if bodyClosed == nil { RawClients.send(slowBody, "x") }
            if trickleClosed == nil { RawClients.send(keptAlive, "X-Slow: 1\r\n") }
            let b = RawClients.readUntilClosed(slowBody, timeout: bodyClosed == nil ? 0.1 : 0)
            bodyReply += b.bytes
            if b.closed, bodyClosed == nil { bodyClosed = Monotonic.now() - started }
            let t = RawClients.readUntilClosed(keptAlive, timeout: trickleClosed == nil ? 0.1 : 0)
            trickleReply += t.bytes
            if t.closed, trickleClosed == nil { trickleClosed = Monotonic.now() - started }
        }
        #expect(String(decoding: bodyReply, as: UTF8.self).hasPrefix("HTTP/1.1 408"))
        #expect(String(decoding: bodyReply, as: UTF8.self).contains(#""code":"request_timeout""#))
        #expect(bodyClosed.map { $0 >= 1.4 && $0 < 3.5 } == true, "slow body cut after \(bodyClosed ?? -1) s")
        // Between requests the watch looks every head timeout; a head begun in between gets one more.
        #expect(String(decoding: trickleReply, as: UTF8.self).hasPrefix("HTTP/1.1 408"))
        #expect(trickleClosed.map { $0 >= 0.9 && $0 < 3.5 } == true, "kept-alive trickle cut after \(trickleClosed ?? -1) s")
        let metrics = try await server.request("GET", "/metrics").text
        #expect(RawClients.metric(metrics, #"abctl_http_connections_timed_out_total{phase="body"}"#) == 1)
        #expect(RawClients.metric(metrics, #"abctl_http_connections_timed_out_total{phase="head"}"#) == 1)
    }

    @Test func tenThousandIdleKeepAliveConnectionsCostNoThread() async throws {
        let count = 10_000
        #expect(RawClients.raiseFileLimit(atLeast: count + 512))
        let server = try await ServeProcess.start()
        let pid = server.pid
        #expect(try await server.request("GET", "/healthz").status == 200)
        let threadsBefore = try #require(RawClients.processStatus(pid, "Threads"))
        let rssBefore = try #require(RawClients.processStatus(pid, "VmRSS"))

        // In batches, so the listen queue never overflows: connect and ask, then read every answer.
        var idle: [Int32] = []
        var answered = 0
        let request = Array("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        while idle.count < count {
            var batch: [Int32] = []
            for _ in 0..<min(500, count - idle.count) {
                guard let fd = RawClients.connect(port: server.port) else { break }
                RawClients.send(fd, request)
                batch.append(fd)
            }
            if batch.isEmpty { break }
            for fd in batch where Self.readOneReply(fd, timeout: 5)?.hasPrefix("HTTP/1.1 200") == true { answered += 1 }
            idle += batch
        }
        defer { for fd in idle { close(fd) } }
        #expect(idle.count == count)
        #expect(answered == count)

        let metrics = try await server.request("GET", "/metrics").text
        #expect((RawClients.metric(metrics, "abctl_http_connections_open") ?? 0) >= Double(count))
        let threadsAfter = try #require(RawClients.processStatus(pid, "Threads"))
        let rssAfter = try #require(RawClients.processStatus(pid, "VmRSS"))
        // Idle connections live in the server threads' epoll sets: no thread each.
        #expect(threadsAfter <= threadsBefore + 4, "threads \(threadsBefore) -> \(threadsAfter)")
        let perConnection = Double(rssAfter - rssBefore) * 1024 / Double(count)
        // libmicrohttpd's 16 KiB connection pool is most of it.
        #expect(perConnection < 32 * 1024, "\(perConnection) bytes of RSS per idle connection")
        print("idle: \(count) keep-alive connections, threads \(threadsBefore) -> \(threadsAfter), RSS \(rssBefore) -> \(rssAfter) kB (\(Int(perConnection)) bytes each)")

        // Normal calls still answer, and so do the idle connections when they speak again.
        for i in 0..<20 {
            let seconds = RawClients.timedAssign(port: server.port, id: i)
            #expect(seconds != nil && seconds! < 1)
        }
        for fd in idle.prefix(10) {
            RawClients.send(fd, request)
            #expect(Self.readOneReply(fd, timeout: 5)?.hasPrefix("HTTP/1.1 200") == true)
        }
    }

    @Test func clientsThatNeverReadAreCutWithoutHoldingAThread() async throws {
        let stuck = 20, threads = 2
        let server = try await ServeProcess.start(arguments: ["--threads", String(threads), "--write-timeout", "1"])
        // Each asks for the OpenAPI document (23 KiB) 200 times, pipelined, through a tiny receive
        // window and never reads: 4.6 MB of answers outgrow the kernel's buffers (4 MiB at most), so
        // the connection waits to write.
        let pipelined = Array(String(repeating: "GET /openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", count: 200).utf8)
        var fds: [Int32] = []
        for _ in 0..<stuck {
            guard let fd = RawClients.connect(port: server.port, receiveBuffer: 2048) else { continue }
            RawClients.send(fd, pipelined)
            fds.append(fd)
        }
        defer { for fd in fds { close(fd) } }
        #expect(fds.count == stuck)
        // Ten times as many stuck clients as server threads, yet normal calls are answered (a thread
        // held by a stuck client would hold them until its write deadline, over 2 s).
        var latencies: [Double] = []
        for i in 0..<30 {
            if let seconds = RawClients.timedAssign(port: server.port, id: i) { latencies.append(seconds) }
        }
        #expect(latencies.count == 30)
        #expect(RawClients.percentile(latencies, 0.99) < 1)
        // And the stuck ones are cut once their answer has waited past the write deadline (1 s plus
        // 23 KiB at 16 KiB/s), then closed: only the /metrics call's own connection stays open.
        #expect(try await eventually(within: .seconds(15)) {
            let metrics = try await server.request("GET", "/metrics").text
            return RawClients.metric(metrics, #"abctl_http_connections_timed_out_total{phase="write"}"#) == Double(stuck)
                && RawClients.metric(metrics, "abctl_http_connections_open") == 1
        })
    }

    @Test func bodyOverTheLimitGetsA413ThatAWriteFirstClientReads() async throws {
        let server = try await ServeProcess.start()
        let fd = try #require(RawClients.connect(port: server.port))
        defer { close(fd) }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let size = 64 << 20
        let head = "POST /v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-ndjson\r\nContent-Length: \(size)\r\n\r\n"
        try RawClients.sendAll(fd, Array(head.utf8))
        // Write the whole body before reading anything, as Python's urllib does.
        let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 1 << 20)
        var sent = 0
        while sent < size {
            try RawClients.sendAll(fd, chunk)
            sent += chunk.count
        }
        let (bytes, closed) = RawClients.readUntilClosed(fd, timeout: 10)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.hasPrefix("HTTP/1.1 413"))
        #expect(text.contains(#""code":"body_too_large""#))
        #expect(closed)
        let metrics = try await server.request("GET", "/metrics").text
        #expect(RawClients.metric(metrics, "abctl_http_lingering_closes_total") == 1)
    }

    @Test func connectionsOverTheLimitAreRefusedAtOnce() async throws {
        let server = try await ServeProcess.start(arguments: ["--max-connections", "3", "--max-connections-per-ip", "2"])
        // Two from 127.0.0.1 fill its address's share.
        let first = try server.connect(), second = try server.connect()
        #expect(try first.request("GET", "/healthz").status == 200)
        #expect(try second.request("GET", "/healthz").status == 200)
        let sameAddress = try #require(RawClients.connect(port: server.port))
        defer { close(sameAddress) }
        let started = Date()
        #expect(RawClients.readUntilClosed(sameAddress, timeout: 2).closed)
        #expect(Date().timeIntervalSince(started) < 1)
        // Another address still gets in, up to the server's limit of three.
        let other = try #require(RawClients.connect(port: server.port, source: "127.0.0.2"))
        defer { close(other) }
        RawClients.send(other, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        #expect(Self.readOneReply(other, timeout: 5)?.hasPrefix("HTTP/1.1 200") == true)
        let fourth = try #require(RawClients.connect(port: server.port, source: "127.0.0.3"))
        defer { close(fourth) }
        #expect(RawClients.readUntilClosed(fourth, timeout: 2).closed)

        let metrics = try first.request("GET", "/metrics").text
        #expect(RawClients.metric(metrics, #"abctl_http_connections_refused_total{reason="per_ip"}"#) == 1)
        #expect(RawClients.metric(metrics, #"abctl_http_connections_refused_total{reason="limit"}"#) == 1)
        #expect(RawClients.metric(metrics, "abctl_http_connections_limit") == 3)
    }

    /// The first reply's bytes on a non-blocking socket (one reply of a small body fits one read).
    static func readOneReply(_ fd: Int32, timeout: Double) -> String? {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        guard case .bytes(let reply) = RawClients.nextArrival(fd, until: Date().addingTimeInterval(timeout), into: &chunk) else {
            return nil
        }
        return String(decoding: reply, as: UTF8.self)
    }
}

/// Seconds on the monotonic clock.
enum Monotonic {
    static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
