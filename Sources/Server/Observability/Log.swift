import ExperimentDefinitions
import Foundation
import HTTPTransport
import Synchronization
import SystemCall

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

    /// Writes one of the transport's notes now.
    @Sendable public func write(_ note: TransportNote) {
        write(level: note.level == .error ? .error : .warning, note.message, note.fields.mapValues { value in
            switch value {
            case .string(let text): .string(text)
            case .number(let number): .number(number)
            }
        })
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
    func buffered(line: UnsafeRawBufferPointer) {
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
    static func appendTimestamp<Out: ByteSink & ~Copyable>(to out: inout Out) {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        appendTimestamp(seconds: Int64(ts.tv_sec), milliseconds: Int(ts.tv_nsec / 1_000_000), to: &out)
    }

    /// `YYYY-MM-DDTHH:MM:SS.mmmZ` by arithmetic: glibc's `gmtime_r` takes a process-wide lock
    /// (the time zone's), which every server thread would queue on once per request.
    static func appendTimestamp<Out: ByteSink & ~Copyable>(seconds: Int64, milliseconds: Int, to out: inout Out) {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = Int(seconds - days * 86_400)
        let (year, month, day) = RFC3339.civilFromDays(Int(days))
        // Written into a stack buffer, then appended at once.
        var text: (UInt64, UInt64, UInt64) = (0, 0, 0)
        withUnsafeMutableBytes(of: &text) { buffer in
            var at = 0
            func put(_ byte: UInt8) { buffer[at] = byte; at += 1 }
            func two(_ v: Int) { put(UInt8(truncatingIfNeeded: v / 10) + 0x30); put(UInt8(truncatingIfNeeded: v % 10) + 0x30) }
            two(year / 100); two(year % 100); put(0x2D)
            two(month); put(0x2D)
            two(day); put(0x54)
            two(secondOfDay / 3600); put(0x3A)
            two(secondOfDay / 60 % 60); put(0x3A)
            two(secondOfDay % 60); put(0x2E)
            put(UInt8(truncatingIfNeeded: milliseconds / 100) + 0x30); two(milliseconds % 100); put(0x5A)
            out.append(raw: UnsafeRawBufferPointer(rebasing: buffer[..<at]))
        }
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
        var out: [UInt8] = []
        appendTimestamp(to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    private static func writeAll(_ fd: Int32, _ bytes: [UInt8]) {
        bytes.withUnsafeBytes { raw in try? SystemCall.writeAll(fd, raw) }
    }
}
