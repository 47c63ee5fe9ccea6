#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SystemCall

/// Reads newline-delimited lines from a file descriptor in fixed-size chunks, so memory
/// stays bounded however long the input is.
public struct LineReader {
    /// One line handed to the caller: its bytes (valid only during the call), or the fact
    /// that it was longer than the limit and skipped.
    public enum Line {
        case bytes(UnsafeBufferPointer<UInt8>)
        case tooLong(byteCount: Int)
    }

    public let fileDescriptor: Int32
    public let chunkSize: Int
    public let maxLineBytes: Int

    public init(fileDescriptor: Int32, chunkSize: Int = 1 << 20, maxLineBytes: Int = 4 << 20) {
        self.fileDescriptor = fileDescriptor
        self.chunkSize = chunkSize
        self.maxLineBytes = maxLineBytes
    }

    public struct ReadError: Error, CustomStringConvertible {
        public var errno: Int32
        public var description: String { "read failed: \(String(cString: strerror(errno)))" }
    }

    /// Calls `body` with each line's 1-based number and content (without the newline or a
    /// trailing CR). A final line without a newline is included. A line longer than
    /// `maxLineBytes` is reported as `.tooLong` and skipped.
    public func forEachLine(_ body: (Int, Line) throws -> Void) throws {
        let capacity = chunkSize + maxLineBytes
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        defer { buffer.deallocate() }
        var filled = 0           // bytes in buffer
        var lineNumber = 0
        var skipping = false     // inside an over-long line, discarding until its newline
        var skippedBytes = 0
        var eof = false

        func emit(_ start: Int, _ end: Int) throws {
            lineNumber += 1
            if skipping {
                let total = skippedBytes + (end - start)
                skipping = false
                skippedBytes = 0
                try body(lineNumber, .tooLong(byteCount: total))
                return
            }
            var e = end
            if e > start, buffer[e - 1] == 0x0D { e -= 1 }
            if e - start > maxLineBytes {
                try body(lineNumber, .tooLong(byteCount: e - start))
                return
            }
            try body(lineNumber, .bytes(UnsafeBufferPointer(start: buffer + start, count: e - start)))
        }

        while !eof {
            let want = min(chunkSize, capacity - filled)
            let n: Int
            do { n = try SystemCall.retrying { read(fileDescriptor, buffer + filled, want) } } catch { throw ReadError(errno: error.errno) }
            if n == 0 { eof = true }
            let scanFrom = filled
            filled += n
            var lineStart = 0
            var cursor = scanFrom
            while cursor < filled, let hit = memchr(buffer + cursor, 0x0A, filled - cursor) {
                let newline = buffer.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                try emit(lineStart, newline)
                lineStart = newline + 1
                cursor = lineStart
            }
            if eof {
                if lineStart < filled || skipping { try emit(lineStart, filled) }
                break
            }
            let rest = filled - lineStart
            if rest > maxLineBytes {
                // Too long to keep: remember its size, drop its bytes, keep reading to its end.
                skipping = true
                skippedBytes += rest
                filled = 0
                continue
            }
            if lineStart > 0 {
                memmove(buffer, buffer + lineStart, rest)
                filled = rest
            }
        }
    }
}
