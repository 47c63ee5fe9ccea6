import Events
import ExperimentDefinitions
import Foundation
import Server
import Testing

/// When a notification is tried again and when it ends, read off the schedule with an
/// injected time: nothing sleeps.
struct NotificationScheduleTests {
    static let recorded = Timestamp(rfc3339: "2026-12-01T00:00:00Z")!
    static func at(_ seconds: Double) -> Timestamp { Timestamp(microseconds: recorded.microseconds + Int64(seconds * 1_000_000)) }

    @Test func waitsDoubleFromOneSecondUpToTenMinutes() {
        let backoff = NotificationBackoff()
        #expect((1...12).map { backoff.wait(afterAttempts: $0) } == [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 600, 600])
        #expect(backoff.wait(afterAttempts: 500) == 600)
    }

    @Test func aFailedTryIsRetriedAfterItsWait() {
        let backoff = NotificationBackoff()
        for status in [0, 301, 302, 408, 429, 500, 503] {
            #expect(backoff.outcome(status: status, error: "e", attempts: 3, recordedAt: Self.recorded, now: Self.at(10))
                    == .retry(next: Self.at(14), error: "e"), "\(status)")
        }
    }

    @Test func a2xxEndsItAndA4xxOtherThan408And429EndsItAsFailed() {
        let backoff = NotificationBackoff()
        for status in [200, 201, 204, 299] {
            #expect(backoff.outcome(status: status, error: "", attempts: 1, recordedAt: Self.recorded, now: Self.at(1)) == .delivered(at: Self.at(1)))
        }
        for status in [400, 401, 403, 404, 410, 422] {
            #expect(backoff.outcome(status: status, error: "answered \(status)", attempts: 1, recordedAt: Self.recorded, now: Self.at(1))
                    == .failed(at: Self.at(1), error: "answered \(status)"))
        }
    }

    /// The whole schedule from the first try: retries while the next falls within 24 hours of the
    /// record, then failed; about 150 tries.
    @Test func retriesForTwentyFourHoursThenGivesUp() {
        let backoff = NotificationBackoff()
        var now = Self.recorded, attempts = 0, nexts: [Timestamp] = []
        while true {
            attempts += 1
            let outcome = backoff.outcome(status: 503, error: "answered 503", attempts: attempts, recordedAt: Self.recorded, now: now)
            guard case .retry(let next, _) = outcome else {
                #expect(outcome == .failed(at: now, error: "answered 503 (retried for 24 hours)"))
                break
            }
            nexts.append(next)
            now = next
        }
        #expect(nexts.prefix(4) == [Self.at(1), Self.at(3), Self.at(7), Self.at(15)])
        #expect(nexts.last!.microseconds <= Self.at(86_400).microseconds)
        #expect(now.microseconds > Self.at(86_400 - 600).microseconds)
        #expect((140...160).contains(attempts), "\(attempts)")
    }

    /// The sample ratio check notifies when it flags, not again while it stays flagged, and again
    /// only after it cleared (a quiet record remembers the clear).
    @Test func aSampleRatioMismatchIsNotifiedAgainOnlyAfterItCleared() throws {
        let now = Date(timeIntervalSince1970: 1_796_083_200)
        var earlier: [OutboxNotification] = []
        #expect(NotificationConditions.sampleRatio(experiment: "e", flagged: false, pValue: 0.4, earlier: earlier, now: now) == nil)
        let first = try #require(NotificationConditions.sampleRatio(experiment: "e", flagged: true, pValue: 1e-5, earlier: earlier, now: now))
        #expect(first.type == "sample_ratio_mismatch" && first.state == .pending)
        earlier.append(first)
        #expect(NotificationConditions.sampleRatio(experiment: "e", flagged: true, pValue: 1e-6, earlier: earlier, now: now + 60) == nil)
        let cleared = try #require(NotificationConditions.sampleRatio(experiment: "e", flagged: false, pValue: 0.3, earlier: earlier, now: now + 120))
        #expect(cleared.state == .quiet && cleared.id != first.id)
        earlier.append(cleared)
        #expect(NotificationConditions.sampleRatio(experiment: "e", flagged: false, pValue: 0.3, earlier: earlier, now: now + 180) == nil)
        let again = try #require(NotificationConditions.sampleRatio(experiment: "e", flagged: true, pValue: 1e-4, earlier: earlier, now: now + 240))
        #expect(again.type == "sample_ratio_mismatch" && again.id != first.id)
        // Another node, recomputing from the same records, makes the same record.
        #expect(NotificationConditions.sampleRatio(experiment: "e", flagged: true, pValue: 1e-4, earlier: earlier, now: now + 300)?.id == again.id)
    }

    @Test func silenceAndTheEndAreNotifiedOncePerOccurrence() throws {
        var e = Experiment(id: "e", name: "E", status: .running, start: Date(timeIntervalSince1970: 1_796_000_000),
                           end: Date(timeIntervalSince1970: 1_796_083_200), variants: [])
        let now = Date(timeIntervalSince1970: 1_796_090_000)
        let past = try #require(NotificationConditions.pastEnd(e, now: now))
        #expect(past.type == "past_end" && past.id == NotificationConditions.pastEnd(e, now: now + 3600)?.id)
        #expect(NotificationConditions.pastEnd(e, now: Date(timeIntervalSince1970: 1_796_083_199)) == nil)
        let last = Timestamp(seconds: 1_796_000_100)
        let silent = try #require(NotificationConditions.noData(e, lastExposure: last, now: now, silenceSeconds: 86_400))
        #expect(silent.type == "no_data" && silent.at == last)
        #expect(NotificationConditions.noData(e, lastExposure: Timestamp(seconds: 1_796_080_000), now: now, silenceSeconds: 86_400) == nil)
        e.status = .stopped
        #expect(NotificationConditions.pastEnd(e, now: now) == nil)
        #expect(NotificationConditions.noData(e, lastExposure: last, now: now, silenceSeconds: 86_400) == nil)
        #expect(NotificationConditions.decision(experiment: "e", verdict: "keep_running", arm: nil, reasons: [], now: now) == nil)
        let ship = try #require(NotificationConditions.decision(experiment: "e", verdict: "ship", arm: "ai", reasons: ["ai wins"], now: now))
        #expect(ship.id == NotificationConditions.decision(experiment: "e", verdict: "ship", arm: "ai", reasons: ["other words"], now: now + 60)?.id)
        #expect(ship.text == "e is decided: ship 'ai': ai wins")
    }
}
