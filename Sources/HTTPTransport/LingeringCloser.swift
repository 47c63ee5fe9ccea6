import CMicroHTTPD
import Foundation
import Synchronization
import SystemCall
#if canImport(Glibc)
import Glibc
#endif

/// Closes connections gently after an answer sent before their body was read (413), as nginx's
/// lingering close does: it sends FIN after the answer, then reads and drops what the client still
/// sends, for a while, before closing.
///
/// Closing a socket with unread bytes in it makes the kernel send a reset, and a client that writes
/// its whole body before reading (Python's urllib, many simple clients) then sees "connection reset"
/// instead of the 413. libmicrohttpd closes such a connection as soon as the answer is out, so the
/// server takes a duplicate of the socket just before (`dup` in the connection-closed notice; the
/// socket stays open while either descriptor does) and drains it on this one thread with its own
/// epoll set, never on a server thread.
final class LingeringCloser: @unchecked Sendable {
    // @unchecked: `epollFD` is written once in init; `sockets` is behind its Mutex.
    struct Limits: Sendable {
        /// Longest a connection lingers in all.
        var totalMS: Int64 = 5_000
        /// Longest to wait for the next bytes.
        var idleMS: Int64 = 2_000
        /// Most bytes read and dropped.
        var maxBytes: Int
        /// Most connections lingering at once; past it a connection closes at once.
        var maxSockets = 64
    }

    private struct Lingering {
        var started: Int64
        var lastRead: Int64
        var bytes = 0
    }

    let limits: Limits
    let stats: ConnectionStats
    private let epollFD: Int32
    private let sockets = Mutex<[Int32: Lingering]>([:])
    private let running = Atomic<Bool>(true)

    init(limits: Limits, stats: ConnectionStats) {
        self.limits = limits
        self.stats = stats
        epollFD = epoll_create1(Int32(EPOLL_CLOEXEC))
        let thread = Thread { [self] in run() }
        thread.name = "abctl-linger"
        thread.start()
    }

    func stop() { running.store(false, ordering: .relaxed) }

    /// Takes over a duplicate of `fd` (the caller still closes its own): FIN goes out after what was
    /// sent, and what arrives is read and dropped until the client closes or a limit passes.
    func adopt(duplicateOf fd: Int32) {
        guard epollFD >= 0 else { return }
        let now = Monotonic.milliseconds()
        let copy: Int32? = sockets.withLock { sockets in
            guard sockets.count < limits.maxSockets else { return nil }
            let copy = fcntl(fd, F_DUPFD_CLOEXEC, 0)
            guard copy >= 0 else { return nil }
            sockets[copy] = Lingering(started: now, lastRead: now)
            return copy
        }
        guard let copy else { return }
        stats.lingerStarted()
        shutdown(copy, Int32(SHUT_WR))
        var event = epoll_event()
        event.events = EPOLLIN.rawValue | EPOLLRDHUP.rawValue
        event.data.fd = copy
        if epoll_ctl(epollFD, EPOLL_CTL_ADD, copy, &event) != 0 { finish(copy) }
    }

    private func run() {
        var events = [epoll_event](repeating: epoll_event(), count: 64)
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while running.load(ordering: .relaxed) {
            let n = epoll_wait(epollFD, &events, Int32(events.count), 100)
            let now = Monotonic.milliseconds()
            for i in 0..<max(0, Int(n)) { drain(events[i].data.fd, into: &buffer, now: now) }
            let expired = sockets.withLock { sockets in
                sockets.filter { now - $0.value.started >= limits.totalMS || now - $0.value.lastRead >= limits.idleMS
                    || $0.value.bytes >= limits.maxBytes }.map(\.key)
            }
            for fd in expired { finish(fd) }
        }
        for fd in sockets.withLock({ Array($0.keys) }) { finish(fd) }
    }

    private func drain(_ fd: Int32, into buffer: inout [UInt8], now: Int64) {
        var total = 0
        while true {
            let n: Int
            do { n = try SystemCall.retrying { buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) } } } catch {
                if error.errno == EAGAIN { break }   // nothing more for now
                finish(fd)
                return
            }
            if n > 0 {
                total += n
                if total >= limits.maxBytes { break }
                continue
            }
            finish(fd)   // the client closed (0) or the socket failed: nothing left to protect
            return
        }
        sockets.withLock { sockets in
            sockets[fd]?.bytes += total
            if total > 0 { sockets[fd]?.lastRead = now }
        }
    }

    private func finish(_ fd: Int32) {
        let known = sockets.withLock { $0.removeValue(forKey: fd) != nil }
        guard known else { return }
        epoll_ctl(epollFD, EPOLL_CTL_DEL, fd, nil)
        close(fd)
        stats.lingerEnded()
    }
}
