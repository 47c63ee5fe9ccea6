import CommandLineKit
#if canImport(Glibc)
import Glibc
#endif

/// Bytes bound for a file descriptor, written in large blocks: commands that stream millions
/// of lines append here instead of calling `print` per line.
struct OutputBuffer {
    private(set) var bytes: [UInt8] = []
    let fd: Int32
    let limit: Int

    init(fd: Int32 = 1, limit: Int = 1 << 16) {
        self.fd = fd
        self.limit = limit
        bytes.reserveCapacity(limit + 4096)
    }

    @inline(__always) mutating func append(_ byte: UInt8) { bytes.append(byte) }
    @inline(__always) mutating func append(_ chunk: [UInt8]) { bytes.append(contentsOf: chunk) }
    @inline(__always) mutating func append(_ s: String) { bytes.append(contentsOf: s.utf8) }

    /// Writes out when the buffer is past its limit.
    @inline(__always) mutating func flushIfFull() throws {
        if bytes.count >= limit { try flush() }
    }

    mutating func flush() throws {
        try bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    throw CLIError.runtime("cannot write output: \(String(cString: strerror(errno)))")
                }
                offset += n
            }
        }
        bytes.removeAll(keepingCapacity: true)
    }
}
