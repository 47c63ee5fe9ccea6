import CommandLineKit
#if canImport(Glibc)
import Glibc
#endif
import SystemCall

/// Reads newline-separated lines from a file descriptor in 64 KiB blocks (a trailing `\r` is
/// dropped), so input of any size streams through in constant memory.
struct InputLines {
    let fd: Int32
    private var buffer: [UInt8] = []
    private var start = 0
    private var eof = false

    init(fd: Int32) { self.fd = fd }

    /// Opens `path` for reading, or standard input for `-`.
    static func open(_ path: String) throws -> InputLines {
        if path == "-" { return InputLines(fd: 0) }
        let fd = Glibc.open(path, O_RDONLY)
        guard fd >= 0 else { throw CLIError.runtime("cannot read '\(path)': \(String(cString: strerror(errno)))") }
        return InputLines(fd: fd)
    }

    func close() { if fd > 2 { _ = Glibc.close(fd) } }

    /// The next line without its terminator, or nil at the end of input.
    mutating func next() throws -> String? {
        while true {
            if let nl = buffer[start...].firstIndex(of: 0x0A) {
                var end = nl
                if end > start && buffer[end - 1] == 0x0D { end -= 1 }
                let line = String(decoding: buffer[start..<end], as: UTF8.self)
                start = nl + 1
                return line
            }
            if eof {
                guard start < buffer.count else { return nil }
                var end = buffer.count
                if buffer[end - 1] == 0x0D { end -= 1 }
                let line = String(decoding: buffer[start..<end], as: UTF8.self)
                start = buffer.count
                return line
            }
            try fill()
        }
    }

    private mutating func fill() throws {
        if start > 0 {
            buffer.removeSubrange(0..<start)
            start = 0
        }
        let chunk = 1 << 16
        let old = buffer.count
        buffer.append(contentsOf: repeatElement(0, count: chunk))
        let n: Int
        do { n = try SystemCall.retrying { buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress! + old, chunk) } } } catch {
            throw CLIError.runtime("cannot read input: \(error.message)")
        }
        buffer.removeLast(chunk - n)
        if n == 0 { eof = true }
    }
}
