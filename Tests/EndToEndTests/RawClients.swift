import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Many raw client sockets on loopback, for tests that play slow or hostile clients by the thousand.
enum RawClients {
    /// Lifts this process's soft open-file limit to the hard one (other suites run beside these
    /// tests in the same process, so they get more than `count`); false when that is under `count`.
    @discardableResult
    static func raiseFileLimit(atLeast count: Int) -> Bool {
        var limit = rlimit()
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        guard getrlimit(resource, &limit) == 0 else { return false }
        if limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max
            setrlimit(resource, &limit)
        }
        return limit.rlim_cur >= rlim_t(count)
    }

    /// A connected socket (blocking connect), made non-blocking; nil when the connect failed.
    /// `receiveBuffer` shrinks the kernel's receive buffer first (a client that reads slowly).
    static func connect(port: UInt16, source: String? = nil, receiveBuffer: Int32? = nil) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        if var size = receiveBuffer {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            _ = withUnsafePointer(to: &local) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let r = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard r == 0 else { close(fd); return nil }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        return fd
    }

    /// Sends what the socket takes now; the count sent (0 when full or broken).
    @discardableResult
    static func send(_ fd: Int32, _ bytes: [UInt8]) -> Int {
        max(0, bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) })
    }

    @discardableResult
    static func send(_ fd: Int32, _ text: String) -> Int { send(fd, Array(text.utf8)) }

    struct SendFailed: Error, CustomStringConvertible {
        var errno: Int32
        var description: String { "send failed: " + String(cString: strerror(errno)) }
    }

    /// Sends every byte on a blocking socket; throws on a reset or broken pipe.
    static func sendAll(_ fd: Int32, _ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { throw SendFailed(errno: errno) }
            offset += n
        }
    }

    /// What one wait on a non-blocking socket gave.
    enum Arrival {
        case bytes(ArraySlice<UInt8>)
        case closed   // end of file or a reset
        case timedOut
    }

    /// The next bytes on non-blocking `fd`, read into `chunk`, waiting until `deadline` at most.
    static func nextArrival(_ fd: Int32, until deadline: Date, into chunk: inout [UInt8]) -> Arrival {
        while Date() < deadline {
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, 50) > 0 else { continue }
            let n = recv(fd, &chunk, chunk.count, Int32(MSG_DONTWAIT))
            if n > 0 { return .bytes(chunk[..<n]) }
            if n < 0, errno == EAGAIN { continue }
            return .closed
        }
        return .timedOut
    }

    /// What arrives on `fd` until the peer closes it or `timeout` passes; `closed` says which.
    static func readUntilClosed(_ fd: Int32, timeout: Double) -> (bytes: [UInt8], closed: Bool) {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            switch nextArrival(fd, until: deadline, into: &chunk) {
            case .bytes(let more): bytes += more
            case .closed: return (bytes, true)
            case .timedOut: return (bytes, false)
            }
        }
    }

    /// An assign request with a fresh user id.
    static func assignRequest(_ id: Int, close: Bool = false) -> String {
        let body = #"{"user_id":"client-\#(id)","attributes":{"platform":"ios","country":"US","app_version":"2.3.0","new_user":true}}"#
        return "POST /v1/assign HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" + (close ? "Connection: close\r\n" : "")
            + "Content-Length: \(body.utf8.count)\r\n\r\n" + body
    }

    /// One assign call on a new connection: its duration in seconds, or nil if it was not a 200.
    static func timedAssign(port: UInt16, id: Int) -> Double? {
        let start = Date()
        guard let connection = try? HTTPConnection(port: port, timeoutSeconds: 5),
              let reply = try? connection.request("POST", "/v1/assign", body: Array(assignRequestBody(id).utf8)),
              reply.status == 200 else { return nil }
        return Date().timeIntervalSince(start)
    }

    static func assignRequestBody(_ id: Int) -> String {
        #"{"user_id":"normal-\#(id)","attributes":{"platform":"ios","country":"US","app_version":"2.3.0","new_user":true}}"#
    }

    /// The value of a sample line (`name{labels} value`) in Prometheus text.
    static func metric(_ text: String, _ sample: String) -> Double? {
        for line in text.split(separator: "\n") where line.hasPrefix(sample + " ") {
            return Double(line.dropFirst(sample.count + 1))
        }
        return nil
    }

    /// A field of /proc/PID/status, e.g. `Threads` or `VmRSS` (kB).
    static func processStatus(_ pid: Int32, _ field: String) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
            return Int(line.dropFirst(field.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "")
        }
        return nil
    }

    /// The `percentile` (0...1) of `values`, nearest rank.
    static func percentile(_ values: [Double], _ percentile: Double) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        return sorted[min(sorted.count - 1, Int((percentile * Double(sorted.count)).rounded(.up)) - 1)]
    }
}
