#if canImport(Glibc)
import Glibc
#endif

/// A C call that failed: which function, while doing what, and `errno` when the call sets it.
///
/// Every call into libc or libmicrohttpd that can fail goes through `CCall.check`, so an error
/// always says what failed and with what (in the manner of swift-nio's `syscall(where:)`).
public struct CCallError: Error, Sendable, CustomStringConvertible {
    /// The C function, e.g. `bind` or `MHD_start_daemon_va`.
    public var function: String
    /// What the server was doing, e.g. `listening on 127.0.0.1:8080`.
    public var context: String
    /// `errno` after the call, or nil for libraries that do not set it.
    public var errno: Int32?

    public var description: String {
        var text = "\(function) failed while \(context)"
        if let errno, errno != 0 { text += ": " + String(cString: strerror(errno)) + " (errno \(errno))" }
        return text
    }
}

/// The one place C results are checked.
enum CCall {
    /// A libc call returning -1 (or any negative value) on failure with `errno` set.
    @discardableResult
    static func check<T: BinaryInteger>(_ function: String, _ context: @autoclosure () -> String, _ body: () -> T) throws(CCallError) -> T {
        let result = body()
        if result < 0 {
            throw CCallError(function: function, context: context(), errno: Glibc.errno)
        }
        return result
    }

    /// A call returning a pointer that is nil on failure.
    static func check<P>(_ function: String, _ context: @autoclosure () -> String, setsErrno: Bool = false, _ body: () -> P?) throws(CCallError) -> P {
        guard let result = body() else {
            throw CCallError(function: function, context: context(), errno: setsErrno ? Glibc.errno : nil)
        }
        return result
    }

    /// A libmicrohttpd call returning `MHD_YES` or `MHD_NO`.
    static func check(_ function: String, _ context: @autoclosure () -> String, _ body: () -> Bool) throws(CCallError) {
        guard body() else { throw CCallError(function: function, context: context(), errno: nil) }
    }
}
