#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A system call that failed, with the `errno` read right after it.
public struct SystemCallError: Error, Sendable, CustomStringConvertible {
    public var errno: Int32

    public init(errno: Int32) { self.errno = errno }

    /// The C library's words for `errno`.
    public var message: String { String(cString: strerror(errno)) }

    public var description: String { "\(message) (errno \(errno))" }
}

/// The one way a blocking call into the C library is made: `errno` is read first, before
/// anything else can change it, and a call a signal interrupted (`EINTR`) is made again.
public enum SystemCall {
    /// The result of `body` (a call that returns a negative value and sets `errno` on failure),
    /// made again while it fails with `EINTR`.
    @inline(__always)
    public static func retrying<T: BinaryInteger>(_ body: () -> T) throws(SystemCallError) -> T {
        while true {
            let result = body()
            if result >= 0 { return result }
            let code = errno
            if code != EINTR { throw SystemCallError(errno: code) }
        }
    }

    /// Writes all of `bytes` to `fd`, through as many `write` calls as it takes.
    public static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws(SystemCallError) {
        var offset = 0
        while offset < bytes.count {
            offset += try retrying { write(fd, bytes.baseAddress! + offset, bytes.count - offset) }
        }
    }
}
