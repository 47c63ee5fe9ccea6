import CMicroHTTPD
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Holds every open connection to its deadlines, which libmicrohttpd 0.9.75 cannot do itself:
/// its only timeout is idle time between bytes, so a client that sends one header line a second
/// keeps a connection forever.
///
/// One thread looks at every connection ten times a second (a load of one atomic word each). A
/// connection past its deadline is cut: in the head or body phase it is answered 408 first; then
/// its socket is shut down, which wakes libmicrohttpd's epoll and makes it close the connection
/// on its own thread. Between requests a kept-alive connection is idle: every `headMS` the watch
/// asks the kernel (`TCP_INFO`) whether bytes came since the last answer; if they did, a head has
/// begun and gets `headMS` from then; if none came for `idleMS`, the connection is closed without
/// an answer.
final class DeadlineWatch: Sendable {
    struct Limits: Sendable {
        var headMS: Int64
        var bodyMS: Int64
        var writeMS: Int64
        var idleMS: Int64
        /// The slowest transfer accepted for bodies and answers; their deadlines grow with their size.
        var minBytesPerSecond: Int

        func body(bytes: Int) -> Int64 { bodyMS + Int64(bytes) * 1000 / Int64(max(1, minBytesPerSecond)) }
        func write(bytes: Int) -> Int64 { writeMS + Int64(bytes) * 1000 / Int64(max(1, minBytesPerSecond)) }
        /// When an idle connection is next looked at.
        func idleCheck(idleSince: Int64, now: Int64) -> Int64 { min(now + headMS, idleSince + idleMS) }
    }

    /// Connections by socket, in shards so that accepting threads rarely share a lock.
    private final class Shard: Sendable {
        let states = Mutex<[Int32: ConnectionState]>([:])
    }

    let limits: Limits
    let stats: ConnectionStats
    /// A whole HTTP/1.1 408 answer with `Connection: close`, written straight to the socket.
    private let timeoutAnswer: [UInt8]
    private let shards = (0..<16).map { _ in Shard() }
    private let running = Atomic<Bool>(true)
    static let tickMicroseconds: UInt32 = 100_000

    init(limits: Limits, stats: ConnectionStats, timeoutAnswer: HTTPResponse) {
        self.limits = limits
        self.stats = stats
        self.timeoutAnswer = Self.serialize(timeoutAnswer)
        let thread = Thread { [self] in
            while running.load(ordering: .relaxed) {
                usleep(Self.tickMicroseconds)
                scan(now: Monotonic.milliseconds())
            }
        }
        thread.name = "abctl-deadlines"
        thread.start()
    }

    func stop() { running.store(false, ordering: .relaxed) }

    func add(_ state: ConnectionState) {
        shards[Int(state.fd & 15)].states.withLock { $0[state.fd] = state }
    }

    func remove(_ state: ConnectionState) {
        shards[Int(state.fd & 15)].states.withLock { states in
            if states[state.fd] === state { states[state.fd] = nil }
        }
    }

    /// Cuts or moves along every connection whose deadline has passed.
    func scan(now: Int64) {
        var due: [ConnectionState] = []
        for shard in shards {
            shard.states.withLock { states in
                for state in states.values {
                    let status = state.status
                    if status.deadline <= now, status.phase != .handling, status.phase != .cut { due.append(state) }
                }
            }
        }
        for state in due { check(state, now: now) }
    }

    private func check(_ state: ConnectionState, now: Int64) {
        let seen = state.status
        guard seen.deadline <= now else { return }
        switch seen.phase {
        case .handling, .cut:
            return
        case .idle:
            let idleFor = now - state.idleSince
            let arrived: Bool? = state.isOpen.withLock { open in open ? Self.dataArrived(fd: state.fd, withinMS: idleFor) : nil }
            guard let arrived else { return }
            if arrived {
                _ = state.replace(seen, with: .head, deadline: now + limits.headMS)
            } else if idleFor >= limits.idleMS {
                cut(state, seen, .idle, answer: false)
            } else {
                _ = state.replace(seen, with: .idle, deadline: limits.idleCheck(idleSince: state.idleSince, now: now))
            }
        case .head:
            cut(state, seen, .head, answer: true)
        case .body:
            cut(state, seen, .body, answer: true)
        case .write:
            cut(state, seen, .write, answer: false)
        }
    }

    private func cut(_ state: ConnectionState, _ seen: ConnectionState.Status, _ kind: ConnectionStats.Cut, answer: Bool) {
        guard state.cut(seen) else { return }   // a server thread moved the connection on first
        // Counted before the client can see the cut, so a /metrics read after the close counts it.
        stats.cut(kind)
        state.isOpen.withLock { open in
            guard open else { return }
            if answer {
                // Nothing of an answer has been sent in these phases, so the 408 goes out whole (or not
                // at all, if the client's window is shut: it is being cut either way).
                _ = timeoutAnswer.withUnsafeBytes { send(state.fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL)) }
            }
            // Wakes libmicrohttpd (the socket reports a hang-up), which closes the connection.
            shutdown(state.fd, Int32(SHUT_RDWR))
        }
    }

    /// Whether the kernel received bytes on `fd` in the last `withinMS` milliseconds (less 50 ms,
    /// so that the request just answered, counted in coarse kernel ticks, does not look new).
    private static func dataArrived(fd: Int32, withinMS: Int64) -> Bool {
        var info = tcp_info()
        var length = socklen_t(MemoryLayout<tcp_info>.size)
        guard getsockopt(fd, Int32(IPPROTO_TCP), TCP_INFO, &info, &length) == 0 else { return false }
        return Int64(info.tcpi_last_data_recv) + 50 < withinMS
    }

    private static func serialize(_ response: HTTPResponse) -> [UInt8] {
        var head = "HTTP/1.1 \(response.status) Request Timeout\r\nContent-Type: \(response.contentType)\r\n"
        for (name, value) in response.headers { head += "\(name): \(value)\r\n" }
        head += "Content-Length: \(response.body.count)\r\nConnection: close\r\n\r\n"
        return Array(head.utf8) + response.body
    }
}
