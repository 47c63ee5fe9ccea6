import Foundation
import Testing
import TestSupport

/// `abctl ingest` names every bad field of every line.
@Suite struct EventRejectionsTests {
    static let good = #"{"event_id":"g1","type":"renewed","user_id":"u","ts":"2026-12-01T10:00:00Z"}"#
    /// Line 1 good; line 2 three problems (event_id, type, ts); line 3 three (trial_days, event_id,
    /// ts); lines 4 to 30 one each (user_id): 33 problems on 29 of 30 lines.
    static let lines = [
        good,
        #"{"event_id":"","type":"buy","user_id":"u"}"#,
        #"{"type":"trial_started","user_id":"u","ts":"yesterday","trial_days":-1}"#,
    ] + (4...30).map { #"{"event_id":"m\#($0)","type":"renewed","ts":"2026-12-01T10:00:00Z"}"# }

    /// The same batch through `/v1/events` is checked in process (ServerTests/InProcess/APIEventRejectionsTests).
    @Test func ingestNamesEveryBadFieldOfEveryLine() async throws {
        // abctl ingest: each problem of each line on stderr, the good line stored.
        let folder = TemporaryFolder()
        let file = folder.write("events.ndjson", Self.lines.joined(separator: "\n") + "\n")
        let ingest = try await Abctl.run(["ingest", file, "--db", folder.path + "/db.sqlite"])
        #expect(ingest.status == 1)
        #expect(ingest.stdout == "stored 1, duplicate 0, rejected 29\n")
        let stderr = ingest.stderr.split(separator: "\n").map(String.init)
        #expect(stderr.count == 33, "\(ingest.stderr)")
        #expect(Array(stderr.prefix(7)) == [
            "2: event_id: must be a non-empty string",
            "2: type: unknown event type 'buy' (expected one of: exposure, trial_started, purchased, converted, renewed, cancelled, refunded, identified, uncancelled, billing_issue, expired, plan_changed)",
            "2: ts: missing", "3: trial_days: must be a whole number of days from 0 to 3660", "3: event_id: missing",
            "3: ts: not an RFC 3339 timestamp: 'yesterday'", "4: user_id: missing",
        ])
    }

    /// An expiry without a reason or with one not in the list, and a plan change without its new
    /// product: each line refused naming its line and field, the good line stored.
    @Test func ingestNamesAnExpiryWithoutAReasonAndAPlanChangeWithoutItsProduct() async throws {
        let folder = TemporaryFolder()
        let file = folder.write("events.ndjson", [
            #"{"event_id":"x1","type":"expired","user_id":"u","ts":"2026-12-01T10:00:00Z","reason":"billing"}"#,
            #"{"event_id":"x2","type":"expired","user_id":"u","ts":"2026-12-01T10:00:00Z"}"#,
            #"{"event_id":"x3","type":"expired","user_id":"u","ts":"2026-12-01T10:00:00Z","reason":"moved_away"}"#,
            #"{"event_id":"x4","type":"plan_changed","user_id":"u","ts":"2026-12-01T10:00:00Z","effective":"now"}"#,
        ].joined(separator: "\n") + "\n")
        let ingest = try await Abctl.run(["ingest", file, "--db", folder.path + "/db.sqlite"])
        #expect(ingest.status == 1)
        #expect(ingest.stdout == "stored 1, duplicate 0, rejected 3\n")
        #expect(ingest.stderr.split(separator: "\n").map(String.init) == [
            "2: reason: required for expired events",
            "3: reason: unknown reason 'moved_away' (expected one of: voluntary, billing, price_increase, product_unavailable, paused, other)",
            "4: product_id: required for plan_changed events",
        ], "\(ingest.stderr)")
    }
}
