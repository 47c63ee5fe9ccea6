import ExperimentDefinitions
import Foundation
import Synchronization

/// Structured logs: one JSON object a line on stderr.
///
/// Request lines are buffered and written at least every 100 ms (or when 64 KiB pile up), so a
/// busy server does not make one system call per request; other lines are written at once.
public final class Log: Sendable {
    public enum Level: String, Sendable {
        case info, warning, error
    }

    public static let shared = Log(fd: 2)

    private let fd: Int32
    private let buffer = Mutex<[UInt8]>([])
    private let flusherStarted = Atomic<Bool>(false)

    init(fd: Int32) { self.fd = fd }

    /// Writes one line now.
    public func write(level: Level, _ message: String, _ fields: [String: JSONValue] = [:]) {
        let line = Self.line(level: level, message: message, fields: fields.sorted { $0.key < $1.key })
        buffer.withLock { pending in
            pending.append(contentsOf: line.utf8)
            pending.append(0x0A)
            Self.writeAll(fd, pending)
            pending.removeAll(keepingCapacity: true)
        }
    }

    /// Buffers one line (request logs), in the order the fields are given.
    public func buffered(level: Level = .info, _ message: String, _ fields: [(String, JSONValue)]) {
        var line: [UInt8] = []
        line.reserveCapacity(256)
        JSONWriter.write(.object([("ts", .string(Self.timestamp())), ("level", .string(level.rawValue)), ("msg", .string(message))] + fields), to: &line)
        line.append(0x0A)
        startFlusher()
        buffer.withLock { pending in
            pending.append(contentsOf: line)
            if pending.count >= 64 << 10 {
                Self.writeAll(fd, pending)
                pending.removeAll(keepingCapacity: true)
            }
        }
    }

    /// Buffers one line already written as JSON bytes (without the newline).
    func buffered(line: [UInt8]) {
        startFlusher()
        buffer.withLock { pending in
            pending.append(contentsOf: line)
            pending.append(0x0A)
            if pending.count >= 64 << 10 {
                Self.writeAll(fd, pending)
                pending.removeAll(keepingCapacity: true)
            }
        }
    }

    /// Appends the UTC time with milliseconds (RFC 3339) as ASCII digits, without building strings.
    static func appendTimestamp(to out: inout [UInt8]) {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        var seconds = ts.tv_sec
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func digits(_ value: Int32, _ width: Int) {
            var divisor: Int32 = 1
            for _ in 1..<width { divisor *= 10 }
            var v = value
            while divisor > 0 {
                out.append(UInt8(v / divisor) + 0x30)
                v %= divisor
                divisor /= 10
            }
        }
        digits(parts.tm_year + 1900, 4); out.append(0x2D)
        digits(parts.tm_mon + 1, 2); out.append(0x2D)
        digits(parts.tm_mday, 2); out.append(0x54)
        digits(parts.tm_hour, 2); out.append(0x3A)
        digits(parts.tm_min, 2); out.append(0x3A)
        digits(parts.tm_sec, 2); out.append(0x2E)
        digits(Int32(ts.tv_nsec / 1_000_000), 3); out.append(0x5A)
    }

    public func flush() {
        buffer.withLock { pending in
            guard !pending.isEmpty else { return }
            Self.writeAll(fd, pending)
            pending.removeAll(keepingCapacity: true)
        }
    }

    private func startFlusher() {
        guard !flusherStarted.load(ordering: .relaxed), flusherStarted.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { return }
        let thread = Thread { [self] in
            while true {
                usleep(100_000)
                flush()
            }
        }
        thread.name = "abctl-log-flusher"
        thread.start()
    }

    static func line(level: Level, message: String, fields: [(String, JSONValue)]) -> String {
        var members: [(String, JSONValue)] = [("ts", .string(timestamp())), ("level", .string(level.rawValue)), ("msg", .string(message))]
        members += fields
        return JSONValue.object(members).serialized()
    }

    /// UTC time with milliseconds, RFC 3339.
    static func timestamp() -> String {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        var seconds = ts.tv_sec
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ n: Int32, _ width: Int) -> String {
            let s = String(n)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2)).\(pad(Int32(ts.tv_nsec / 1_000_000), 3))Z"
    }

    private static func writeAll(_ fd: Int32, _ bytes: [UInt8]) {
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 { if errno == EINTR { continue }; return }
                offset += n
            }
        }
    }
}
