#if canImport(Glibc)
import Glibc
#endif

/// The process's open-file limit, which bounds how many connections the server can hold.
public enum FileLimit {
    public struct Reading: Sendable, Equatable {
        /// The soft limit in force now.
        public var soft: Int
        public var hard: Int
        /// The soft limit before `raiseToHard` lifted it; nil when it was already at the hard one.
        public var raisedFrom: Int?
    }

    /// Descriptors kept back from connections for everything else the server opens: the store's
    /// files (three per SQLite connection), libmicrohttpd's epoll and wake-up descriptors, logs,
    /// lingering closes, outgoing calls to a copy model.
    public static func reserve(threads: Int) -> Int { 256 + 8 * threads }

    /// Connections the server takes when `--max-connections` is not given.
    public static let defaultConnections = 16_000

    /// Lifts the soft limit to the hard one (allowed without privileges) and reports both.
    public static func raiseToHard() -> Reading {
        var limit = rlimit()
        guard getrlimit(RLIMIT_NOFILE_VALUE, &limit) == 0 else { return Reading(soft: 1024, hard: 1024, raisedFrom: nil) }
        // RLIM_INFINITY is all ones (Swift cannot import the C macro's -1 as unsigned).
        let hard = limit.rlim_max > rlim_t(Int32.max) ? Int(Int32.max) : Int(limit.rlim_max)
        let soft = limit.rlim_cur > rlim_t(Int32.max) ? Int(Int32.max) : Int(limit.rlim_cur)
        guard soft < hard else { return Reading(soft: soft, hard: hard, raisedFrom: nil) }
        var raised = limit
        raised.rlim_cur = limit.rlim_max
        guard setrlimit(RLIMIT_NOFILE_VALUE, &raised) == 0 else { return Reading(soft: soft, hard: hard, raisedFrom: nil) }
        return Reading(soft: hard, hard: hard, raisedFrom: soft)
    }

    /// The most connections a process with `fileLimit` descriptors can hold beside the reserve.
    public static func capacity(fileLimit: Int, threads: Int) -> Int { max(0, fileLimit - reserve(threads: threads)) }

    // Glibc imports RLIMIT_NOFILE as an enum case; the functions take its raw value.
    private static var RLIMIT_NOFILE_VALUE: __rlimit_resource_t { __rlimit_resource_t(RLIMIT_NOFILE.rawValue) }
}
