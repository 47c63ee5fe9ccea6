import Foundation
import TestSupport
import Testing

/// `abctl safeguards check` and `reset` through the binary (SPEC §5, §6).
@Suite struct SafeguardsCommandTests {
    /// An experiment guarded on Day-0 cancels, and events in which the treatment's trial starters
    /// cancel on day 0 twice as often (40% against 20%), in a SQLite store.
    static func setUp() async throws -> (TemporaryFolder, String) {
        let folder = AssignCommandTests.folder()
        folder.write("e2e.json", experiment())
        let db = folder.path + "/abctl.sqlite"
        let ingest = try await Abctl.run(["ingest", "-", "--db", db, "--experiments", folder.path], stdin: eventLines())
        #expect(ingest.status == 0, "\(ingest.stderr)")
        return (folder, db)
    }

    /// The guarded experiment; `checkMinutes` nil leaves the default.
    static func experiment(checkMinutes: Double? = nil) -> String {
        """
        { "$schema": "schema.json", "id": "e2e", "name": "Guarded", "status": "running", "start": "2026-12-01T00:00:00Z",
          "safeguards": { "metrics": ["day0_cancel_rate"], "min_users": 100\(checkMinutes.map { ", \"check_minutes\": \($0)" } ?? "") },
          "variants": [
            { "key": "control", "paywall": { "offering": "chorus_plus", "trial_days": 3, "copy": { "strategy": "static", "text": "Hear every bird." } } },
            { "key": "treatment", "paywall": { "offering": "chorus_plus", "trial_days": 3, "copy": { "strategy": "static", "text": "Hear more birds." } } } ] }
        """
    }

    /// 2,400 users exposed on 1 December; the treatment's trial starters cancel on day 0 twice as
    /// often (40% against 20%): harmful once evaluated on or after 3 December.
    static func eventLines() -> String {
        var lines: [String] = []
        var rng = SeededGenerator(seed: 29)
        for n in 0..<2400 {
            let arm = n % 2 == 0 ? "control" : "treatment"
            let minute = n % 1440
            let ts = String(format: "2026-12-01T%02d:%02d:00Z", minute / 60, minute % 60)
            lines.append(#"{"event_id":"x\#(n)","type":"exposure","user_id":"u\#(n)","experiment":"e2e","variant":"\#(arm)","ts":"\#(ts)"}"#)
            lines.append(#"{"event_id":"t\#(n)","type":"trial_started","user_id":"u\#(n)","ts":"\#(ts)"}"#)
            if Double.random(in: 0..<1, using: &rng) < (arm == "control" ? 0.2 : 0.4) {
                lines.append(#"{"event_id":"c\#(n)","type":"cancelled","user_id":"u\#(n)","ts":"2026-12-02T\#(String(format: "%02d", minute / 60)):00:00Z"}"#)
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    @Test func checkStopsTheHarmfulArmAndExitsOneUntilReset() async throws {
        let (folder, db) = try await Self.setUp()
        let base = ["--db", db, "--experiments", folder.path]
        // Before any trial starter's Day-0 window has passed nobody is mature: nothing to stop.
        let early = try await Abctl.run(["safeguards", "check"] + base, environment: ["ABCTL_NOW": "2026-12-01T12:00:00Z"])
        #expect(early.status == 0, "\(early.stdout)\(early.stderr)")
        #expect(early.stdout.contains("not tested (no mature trial starters yet"))

        let check = try await Abctl.run(["safeguards", "check", "--format", "json"] + base, environment: ["ABCTL_NOW": "2026-12-03T00:00:00Z"])
        #expect(check.status == 1, "\(check.stdout)\(check.stderr)")
        let body = try #require(try JSONSerialization.jsonObject(with: Data(check.stdout.utf8)) as? [String: Any])
        let stops = try #require(body["new_stops"] as? [[String: Any]])
        #expect(stops.count == 1)
        #expect(stops.first?["arm"] as? String == "treatment" && stops.first?["metric"] as? String == "day0_cancel_rate")
        let interval = try #require((stops.first?["figures"] as? [String: Any])?["interval"] as? [Double])
        #expect(interval[0] > 0)
        // A second evaluation writes no second stop; the stop stays in force.
        let again = try await Abctl.run(["safeguards", "check", "--format", "json"] + base, environment: ["ABCTL_NOW": "2026-12-03T01:00:00Z"])
        #expect(again.status == 1)
        let againBody = try #require(try JSONSerialization.jsonObject(with: Data(again.stdout.utf8)) as? [String: Any])
        #expect((againBody["new_stops"] as? [Any])?.isEmpty == true && (againBody["in_force"] as? [Any])?.count == 1)

        let reset = try await Abctl.run(["safeguards", "reset", "e2e", "treatment", "--by", "ana"] + ["--db", db], environment: ["ABCTL_NOW": "2026-12-03T02:00:00Z"])
        #expect(reset.status == 0, "\(reset.stderr)")
        #expect(reset.stdout.contains("by ana at 2026-12-03T02:00:00"))
        let twice = try await Abctl.run(["safeguards", "reset", "e2e", "treatment"] + ["--db", db])
        #expect(twice.status == 1 && twice.stderr.contains("no safeguard stop in force for e2e treatment"))
        let bad = try await Abctl.run(["safeguards", "frobnicate"] + base)
        #expect(bad.status == 2)
    }
}
