import Foundation
import Testing

/// A line naming an experiment the folder does not have (an old app build, a typo) is not refused:
/// listed in `ignored_lines` with the nearest id; an exposure is left out, a payment stored without
/// the experiment, so no revenue is lost.
@Suite struct APIIgnoredLinesTests {
    @Test func anUnknownExperimentIsListedWithTheNearestIDAndNoPaymentIsLost() async throws {
        let server = try InProcessServer()
        let lines = [
            #"{"event_id":"x1","type":"exposure","user_id":"u1","experiment":"chorus-paywal-copy","variant":"ai","ts":"2026-12-01T10:00:00Z"}"#,
            #"{"event_id":"p1","type":"purchased","user_id":"u1","experiment":"chorus-paywal-copy","revenue":59.99,"ts":"2026-12-01T10:05:00Z"}"#,
            #"{"event_id":"t1","type":"trial_started","user_id":"u2","ts":"2026-12-01T10:06:00Z"}"#,
        ]
        let reply = await server.request("POST", "/v1/events", headers: ["Content-Type": "application/x-ndjson"], body: lines.joined(separator: "\n"))
        #expect(reply.status == 200, "\(reply.text)")
        let json = try #require(reply.json)
        #expect(json["stored"] as? Int == 2 && json["ignored"] as? Int == 2, "\(reply.text)")
        let listed = try #require(json["ignored_lines"] as? [[String: Any]])
        #expect(listed.map { $0["line"] as? Int } == [1, 2])
        #expect(listed.allSatisfy { $0["code"] as? String == "unknown_experiment" })
        #expect(listed.first?["message"] as? String == "no experiment 'chorus-paywal-copy' in the folder (did you mean 'chorus-paywall-copy'?); the exposure is not stored")
        #expect(listed.last?["message"] as? String == "no experiment 'chorus-paywal-copy' in the folder (did you mean 'chorus-paywall-copy'?); the purchased event is stored without it")
        let rows = try await server.query("SELECT event_id, coalesce(experiment, 'NULL'), revenue FROM events ORDER BY event_id")
        #expect(rows == [["p1", "NULL", "59.99"], ["t1", "NULL", ""]], "\(rows)")
        #expect(await server.request("GET", "/metrics").text.contains("abctl_events_total{outcome=\"ignored\"} 2"))
    }
}
