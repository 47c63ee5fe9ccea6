@testable import HTTPTransport
import Testing

@Suite struct ConnectionStateTests {
    @Test func serverThreadsMoveAConnectionAlongUntilItIsCut() {
        let state = ConnectionState(fd: -1, peer: nil, headDeadline: 1_000)
        #expect(state.status.phase == .head)
        #expect(state.status.deadline == 1_000)
        #expect(state.enter(.body, deadline: 2_000))
        #expect(state.status.phase == .body && state.status.deadline == 2_000)
        // The watch cuts from exactly what it saw; afterwards no thread can move the connection.
        let seen = state.status
        #expect(state.cut(seen))
        #expect(state.status.phase == .cut)
        #expect(state.cutIn == .body)
        #expect(!state.enter(.handling, deadline: 0))
        #expect(!state.enter(.write, deadline: 9_000))
        #expect(state.cutIn == .body)
    }

    @Test func theWatchLosesWhenAServerThreadMovedFirst() {
        let state = ConnectionState(fd: -1, peer: nil, headDeadline: 1_000)
        let seen = state.status
        #expect(state.enter(.body, deadline: 5_000))
        #expect(!state.cut(seen))
        #expect(state.status.phase == .body)
        #expect(state.cutIn == nil)
    }

    @Test func extendOnlyMovesTheSamePhase() {
        let state = ConnectionState(fd: -1, peer: nil, headDeadline: 1_000)
        state.enter(.body, deadline: 2_000)
        state.extend(.body, deadline: 3_000)
        #expect(state.status.deadline == 3_000)
        state.extend(.write, deadline: 9_000)
        #expect(state.status.phase == .body && state.status.deadline == 3_000)
        state.becameIdle(now: 4_000, checkAt: 5_000)
        #expect(state.status.phase == .idle)
        #expect(state.idleSince == 4_000)
    }

    @Test func deadlinesGrowWithSizeAtTheMinimumRate() {
        let limits = DeadlineWatch.Limits(headMS: 10_000, bodyMS: 10_000, writeMS: 5_000, idleMS: 30_000, minBytesPerSecond: 16_384)
        #expect(limits.body(bytes: 0) == 10_000)
        #expect(limits.body(bytes: 16 << 20) == 10_000 + 1_024_000)
        #expect(limits.write(bytes: 32_768) == 7_000)
        // An idle connection is looked at every head timeout, and last at the idle timeout.
        #expect(limits.idleCheck(idleSince: 0, now: 0) == 10_000)
        #expect(limits.idleCheck(idleSince: 0, now: 25_000) == 30_000)
    }

    @Test func logThrottleLetsOneLineAPeriodThroughWithTheCount() {
        let throttle = LogThrottle(everySeconds: 10)
        #expect(throttle.admit("cut head", now: 100) == 1)
        #expect(throttle.admit("cut head", now: 101) == nil)
        #expect(throttle.admit("cut head", now: 105) == nil)
        #expect(throttle.admit("cut body", now: 105) == 1)
        #expect(throttle.admit("cut head", now: 110) == 3)
        #expect(throttle.admit("cut head", now: 111) == nil)
    }

    @Test func fileLimitKeepsAReserveBesideConnections() {
        #expect(FileLimit.capacity(fileLimit: 20_000, threads: 4) == 20_000 - 288)
        #expect(FileLimit.capacity(fileLimit: 100, threads: 4) == 0)
        let reading = FileLimit.raiseToHard()
        #expect(reading.soft == reading.hard)
        let config = HTTPDaemon.Configuration(threads: 4)
        #expect(config.resolvedConnectionLimit(fileLimit: 20_000) == FileLimit.defaultConnections)
        #expect(config.resolvedConnectionLimit(fileLimit: 1_024) == 1_024 - 288)
    }
}
