import Foundation
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// How tests start programs: a child gets its 0, 1 and 2 and nothing else of the test process,
/// however many descriptors the process holds, and starts as a shell would start it.
@Suite(.timeLimit(.minutes(2)))
struct ChildProcessTests {
    /// The descriptors a child holds, as its own listing of /proc/self/fd shows them (3: the listing's).
    static func descriptorsOfAChild() async throws -> [String] {
        let run = try await ChildProcess.run("/bin/ls", ["/proc/self/fd"], environment: ["LC_ALL": "C"], limit: .seconds(60))
        #expect(run.status == 0, "\(run.stderr)")
        let listed = run.stdout.split(separator: "\n").map(String.init)
        try #require(listed.count <= 4, "the child holds \(listed.count) descriptors")
        return listed
    }

    /// Opens /dev/null `count` times (descriptors a child would inherit: no close-on-exec) for `body`.
    static func holding<R>(_ count: Int, _ body: ([Int32]) async throws -> R) async throws -> R {
        let held = (0..<count).map { _ in open("/dev/null", O_RDONLY) }
        defer { for fd in held where fd >= 0 { close(fd) } }
        try #require(held.allSatisfy { $0 >= 0 }, "open /dev/null: \(String(cString: strerror(errno)))")
        return try await body(held)
    }

    @Test func aChildGetsNoneOfTheTestProcesssOtherDescriptors() async throws {
        try await Self.holding(1) { held in
            let seen = try await Self.descriptorsOfAChild()
            #expect(seen == ["0", "1", "2", "3"], "held \(held)")
        }
    }

    /// Thousands of open descriptors in the test process (servers and clients at once) change nothing for a child.
    @Test func aChildStartsWhileTheTestProcessHoldsThreeThousandDescriptors() async throws {
        try await Self.holding(3000) { held in
            #expect((held.max() ?? 0) >= 3000)
            let seen = try await Self.descriptorsOfAChild()
            #expect(seen == ["0", "1", "2", "3"])
        }
    }

    /// No signal blocked in it: the test pool's threads block most signals, and a mask is inherited.
    @Test func aChildEndsOnSIGTERM() async throws {
        let child = try ChildProcess("/bin/sleep", ["60"])
        child.signal(SIGTERM)
        #expect(await child.exit(within: .seconds(20)) == SIGTERM)
        #expect(child.endedBySignal)
    }

    @Test func aMissingProgramIsRefusedByItsPath() {
        let error = #expect(throws: (any Error).self) { _ = try ChildProcess("/nonexistent/abctl-no-such-program", []) }
        #expect(error.map { "\($0)" }?.contains("cannot start /nonexistent/abctl-no-such-program: No such file or directory") == true, "\(String(describing: error))")
    }
}
