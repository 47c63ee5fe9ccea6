import Foundation
import SystemCall
#if canImport(Glibc)
import Glibc
#endif

/// The one way tests start a program: posix_spawn, with the child's 0, 1 and 2 opened on the
/// paths given and no other descriptor of this process, and a wait for its end.
///
/// Not Foundation's `Process`: in this toolchain its `run` reads past the end of /proc/self/fd's
/// listing once the calling process holds about a thousand descriptors, and the SIGSEGV ends the
/// whole test run; the test runs hold that many at times (load tests, servers, stores at once).
enum Spawn {
    /// posix_spawn refused, e.g. no such executable (ENOENT).
    struct CannotStart: Error, CustomStringConvertible {
        var executable: String
        var errno: Int32
        var description: String { "cannot start \(executable): \(String(cString: strerror(errno))) (errno \(errno))" }
    }

    /// Starts `executable` (a path; argv[0] is that path) with exactly `environment`,
    /// in `directory` (else this process's), reading `stdin`, writing `stdout` and `stderr` (files
    /// created or emptied; no `stderr`: the same file as `stdout`).
    static func start(_ executable: String, _ arguments: [String], environment: [String: String], in directory: String? = nil,
                      stdin: String = "/dev/null", stdout: String, stderr: String? = nil) throws(CannotStart) -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        let created = O_WRONLY | O_CREAT | O_TRUNC
        var results = [posix_spawn_file_actions_addopen(&actions, 0, stdin, O_RDONLY, 0),
                       posix_spawn_file_actions_addopen(&actions, 1, stdout, created, 0o644),
                       stderr.map { posix_spawn_file_actions_addopen(&actions, 2, $0, created, 0o644) }
                           ?? posix_spawn_file_actions_adddup2(&actions, 1, 2)]
        if let directory { results.append(GlibcSpawnExtensions.addChdir(&actions, directory)) }
        // Nothing else of this process: another test's socket or pipe kept open in a child would
        // keep a port bound after its server was killed, or a reader waiting for an end of file.
        results.append(GlibcSpawnExtensions.addCloseFrom(&actions, 3))

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // As a shell would start it: no signal blocked or ignored (Dispatch's threads block most
        // signals, and a mask is inherited), and a process group of its own, as `Process` gave it.
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        results += [posix_spawnattr_setsigmask(&attributes, &none), posix_spawnattr_setsigdefault(&attributes, &all),
                    posix_spawnattr_setpgroup(&attributes, 0),
                    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))]
        if let failed = results.first(where: { $0 != 0 }) { throw CannotStart(executable: executable, errno: failed) }

        var pid: pid_t = 0
        let spawned = withCStrings([executable] + arguments) { argv in
            withCStrings(environment.map { "\($0.key)=\($0.value)" }) { envp in posix_spawn(&pid, executable, &actions, &attributes, argv, envp) }
        }
        guard spawned == 0 else { throw CannotStart(executable: executable, errno: spawned) }
        return pid
    }

    /// Blocks the calling thread until `pid` ends, and reaps it: its exit status, or the number of
    /// the signal that ended it. (-1, false) only if something else reaped it first.
    static func wait(_ pid: pid_t) -> (status: Int32, bySignal: Bool) {
        var status: Int32 = 0
        do { _ = try SystemCall.retrying { waitpid(pid, &status, 0) } } catch { return (-1, false) }
        let signal = status & 0x7f
        return signal == 0 ? ((status >> 8) & 0xff, false) : (signal, true)
    }

    /// `strings` as C strings in a NULL-terminated array, as argv and envp are passed, for `body`'s length.
    private static func withCStrings<R>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> R) -> R {
        let pointers = strings.map { strdup($0) } + [nil]
        defer { pointers.forEach { free($0) } }
        return body(pointers)
    }
}

/// glibc's additions to posix_spawn's file actions (since 2.34), which Swift's Glibc module does not
/// export (they are declared only for _GNU_SOURCE): looked up by name.
private enum GlibcSpawnExtensions {
    typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    typealias Chdir = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32

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
