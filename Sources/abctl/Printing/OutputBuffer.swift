import CommandLineKit
#if canImport(Glibc)
import Glibc
#endif
import SystemCall

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
        let failure = bytes.withUnsafeBytes { raw -> SystemCallError? in
            do throws(SystemCallError) { try SystemCall.writeAll(fd, raw) } catch { return error }
            return nil
        }
        if let failure { throw CLIError.runtime("cannot write output: \(failure.message)") }
        bytes.removeAll(keepingCapacity: true)
    }
}
