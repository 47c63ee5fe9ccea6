#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one way abctl and its tests start a program: posix_spawn, with the child's 0, 1 and 2 set
/// as asked and no other descriptor of this process, and a wait for its end that reaps it.
///
/// Not Foundation's `Process`: on Linux, in this toolchain, its `run` reads past the end of
/// /proc/self/fd's listing once the calling process holds about a thousand descriptors, and the
/// SIGSEGV ends the process. A server with many connections open, or a test run with servers,
/// stores and load tests at once, holds that many.
public enum Spawn {
    /// Where one of the child's standard descriptors comes from.
    public enum Stream: Sendable {
        /// A file opened for the child: read for its input; created or emptied for an output.
        case path(String)
        /// A descriptor of this process (a pipe's end), duplicated onto the child's.
        case descriptor(Int32)
    }

    /// posix_spawn refused, e.g. no such executable (ENOENT).
    public struct CannotStart: Error, Sendable, CustomStringConvertible {
        public var executable: String
        public var errno: Int32
        public var description: String { "cannot start \(executable): \(SystemCallError(errno: errno))" }
    }

    /// Starts `executable` (a path; argv[0] is that path) with exactly `environment`, in `directory`
    /// (else this process's), its input from `stdin`, its output to `stdout` and its errors to
    /// `stderr` (nil: where its output goes). The child has no signal blocked or ignored and a
    /// process group of its own, as a shell would start it.
    public static func start(_ executable: String, _ arguments: [String], environment: [String: String], in directory: String? = nil,
                             stdin: Stream = .path("/dev/null"), stdout: Stream, stderr: Stream? = nil) throws(CannotStart) -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        let created = O_WRONLY | O_CREAT | O_TRUNC
        func onto(_ target: Int32, _ stream: Stream, flags: Int32) -> Int32 {
            switch stream {
            case .path(let path): posix_spawn_file_actions_addopen(&actions, target, path, flags, 0o644)
            case .descriptor(let fd): posix_spawn_file_actions_adddup2(&actions, fd, target)
            }
        }
        var results = [onto(0, stdin, flags: O_RDONLY), onto(1, stdout, flags: created),
                       stderr.map { onto(2, $0, flags: created) } ?? posix_spawn_file_actions_adddup2(&actions, 1, 2)]
        if let directory { results.append(SpawnExtensions.addChdir(&actions, directory)) }
        // Nothing else of this process: a socket or pipe kept open in a child would keep a port
        // bound after its server ended, or a reader waiting for an end of file.
        results.append(SpawnExtensions.addCloseFrom(&actions, 3))

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Dispatch's threads block most signals, and a mask is inherited.
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        results += [posix_spawnattr_setsigmask(&attributes, &none), posix_spawnattr_setsigdefault(&attributes, &all),
                    posix_spawnattr_setpgroup(&attributes, 0),
                    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP
                                                                | SpawnExtensions.extraFlags))]
        if let failed = results.first(where: { $0 != 0 }) { throw CannotStart(executable: executable, errno: failed) }

        var pid: pid_t = 0
        let spawned = withCStrings([executable] + arguments) { argv in
            withCStrings(environment.map { "\($0.key)=\($0.value)" }) { envp in posix_spawn(&pid, executable, &actions, &attributes, argv, envp) }
        }
        guard spawned == 0 else { throw CannotStart(executable: executable, errno: spawned) }
        return pid
    }

    /// Blocks the calling thread until `pid` ends and reaps it: its exit status, or the number of
    /// the signal that ended it; (-1, false) only if something else reaped it first.
    /// `beforeReaping` runs once it has ended but before its pid is freed for reuse, so a `kill`
    /// that checks a flag `beforeReaping` sets never reaches another process.
    public static func wait(_ pid: pid_t, beforeReaping: () -> Void = {}) -> (status: Int32, bySignal: Bool) {
        var info = siginfo_t()
        _ = try? SystemCall.retrying { waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) }
        beforeReaping()
        var status: Int32 = 0
        do { _ = try SystemCall.retrying { waitpid(pid, &status, 0) } } catch { return (-1, false) }
        let signal = status & 0x7f
        return signal == 0 ? ((status >> 8) & 0xff, false) : (signal, true)
    }

    /// A pipe whose two ends close on exec (a child gets an end only through a `.descriptor` stream;
    /// the children started here close everything above 2 anyway).
    public static func pipe() throws(SystemCallError) -> (read: Int32, write: Int32) {
        var ends: [Int32] = [0, 0]
        _ = try SystemCall.retrying { ends.withUnsafeMutableBufferPointer { systemPipe($0.baseAddress!) } }
        for fd in ends { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return (ends[0], ends[1])
    }

    /// `strings` as C strings in a NULL-terminated array, as argv and envp are passed, for `body`'s length.
    private static func withCStrings<R>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> R) -> R {
        let pointers = strings.map { strdup($0) } + [nil]
        defer { pointers.forEach { free($0) } }
        return body(pointers)
    }
}

/// `pipe(2)`, apart from the name `Spawn.pipe` takes.
private func systemPipe(_ ends: UnsafeMutablePointer<Int32>) -> Int32 { pipe(ends) }

#if canImport(Glibc)
/// glibc's additions to posix_spawn's file actions (since 2.34), which Swift's Glibc module does not
/// export (they are declared only for _GNU_SOURCE): looked up by name.
private enum SpawnExtensions {
    typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    typealias Chdir = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32
    static let extraFlags: Int32 = 0

    /// Closes every descriptor from `lowest` up in the child.
    static func addCloseFrom(_ actions: inout posix_spawn_file_actions_t, _ lowest: Int32) -> Int32 {
        unsafeBitCast(symbol("posix_spawn_file_actions_addclosefrom_np"), to: CloseFrom.self)(&actions, lowest)
    }

    /// Makes `directory` the child's working directory.
    static func addChdir(_ actions: inout posix_spawn_file_actions_t, _ directory: String) -> Int32 {
        unsafeBitCast(symbol("posix_spawn_file_actions_addchdir_np"), to: Chdir.self)(&actions, directory)
    }

    private static func symbol(_ name: String) -> UnsafeMutableRawPointer {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else { fatalError("this C library has no \(name) (glibc 2.34 or later has)") }
        return symbol
    }
}
#else
/// Darwin's: every descriptor not named in the file actions closes on exec (a flag, not an action).
private enum SpawnExtensions {
    static let extraFlags = Int32(POSIX_SPAWN_CLOEXEC_DEFAULT)
    static func addCloseFrom(_ actions: inout posix_spawn_file_actions_t, _ lowest: Int32) -> Int32 { 0 }
    static func addChdir(_ actions: inout posix_spawn_file_actions_t, _ directory: String) -> Int32 {
        posix_spawn_file_actions_addchdir_np(&actions, directory)
    }
}
#endif
