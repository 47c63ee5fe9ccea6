import Foundation
import TestSupport
import Testing

/// `abctl safeguards check` and `reset` through the binary.
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
        #expect(early.stdout.contains("evaluated 1 experiment: e2e"), "\(early.stdout)")

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

        // The report's safeguards, in every format, built from the store's stop.
        let json = try await Abctl.run(["report", "e2e", "--format", "json"] + base, environment: ["ABCTL_NOW": "2026-12-03T01:30:00Z"])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any], "\(json.stderr)")
        let entries = try #require(report["safeguards"] as? [[String: Any]])
        #expect(entries.count == 1)
        #expect(entries.first?["arm"] as? String == "treatment" && entries.first?["metric"] as? String == "day0_cancel_rate"
                && entries.first?["action"] as? String == "stop_arm" && (entries.first?["at"] as? String)?.hasPrefix("2026-12-03T00:00:00") == true
                && entries.first?["figures"] is [String: Any] && entries.first?["reset_at"] is NSNull)
        #expect((report["health"] as? [[String: Any]])?.contains { $0["code"] as? String == "safeguard" } == true)
        // Users first exposed to the treatment while stopped saw the control's paywall: left out, and
        // the sample ratio check counts only users from before the stop.
        let late = (0..<3).map { #"{"event_id":"late\#($0)","type":"exposure","user_id":"late\#($0)","experiment":"e2e","variant":"\#($0 == 0 ? "control" : "treatment")","ts":"2026-12-03T00:30:00Z"}"# }
        let ingestLate = try await Abctl.run(["ingest", "-"] + base, stdin: late.joined(separator: "\n") + "\n")
        #expect(ingestLate.status == 0, "\(ingestLate.stderr)")
        let cut = try await Abctl.run(["report", "e2e", "--format", "json"] + base, environment: ["ABCTL_NOW": "2026-12-03T01:30:00Z"])
        let cutReport = try #require(try JSONSerialization.jsonObject(with: Data(cut.stdout.utf8)) as? [String: Any], "\(cut.stderr)")
        let users = (cutReport["variants"] as? [[String: Any]])?.map { $0["users"] as? Int }
        #expect(users == [1201, 1200], "\(cut.stdout.prefix(800))")
        #expect(((cutReport["srm"] as? [String: Any])?["counted_before"] as? String)?.hasPrefix("2026-12-03T00:00:00") == true)
        #expect((cutReport["health"] as? [[String: Any]])?.contains { ($0["message"] as? String)?.hasPrefix("2 users were first exposed to “treatment” while a safeguard stop held it") == true } == true)
        let text = try await Abctl.run(["report", "e2e"] + base, environment: ["ABCTL_NOW": "2026-12-03T01:30:00Z"])
        #expect(text.stdout.contains("SAFEGUARDS") && text.stdout.contains("arm treatment stopped on day0_cancel_rate at 2026-12-03T00:00:00"), "\(text.stdout)")
        let out = TemporaryFolder()
        for format in ["markdown", "html", "csv"] {
            let run = try await Abctl.run(["report", "e2e", "--format", format, "--out", out.path] + base, environment: ["ABCTL_NOW": "2026-12-03T01:30:00Z"])
            #expect(run.status == 0, "\(run.stderr)")
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: out.path)
        for suffix in ["md", "html", "csv"] {
            let name = try #require(files.first { $0.hasSuffix("." + suffix) }, "\(files)")
            let body = try String(contentsOfFile: out.path + "/" + name, encoding: .utf8)
            #expect(suffix == "csv" ? body.contains(",treatment,false,day0_cancel_rate,") && body.contains(",safeguard,stop_arm at 2026-12-03T00:00:00")
                                    : body.contains("arm treatment stopped on day0_cancel_rate"), "\(suffix): \(body.prefix(3000))")
        }
        // The stop's CSV row fills every column of the header (it lacked `money` until 2026-12-04).
        let csv = try String(contentsOfFile: out.path + "/" + (try #require(files.first { $0.hasSuffix(".csv") })), encoding: .utf8)
        let lines = csv.components(separatedBy: "\r\n")
        let header = lines[0].split(separator: ",").map(String.init)
        let stop = try #require(lines.first { $0.contains(",safeguard,stop_arm at ") }).split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        let direction = try #require(header.firstIndex(of: "direction")), currency = try #require(header.firstIndex(of: "currency"))
        #expect(stop.count == header.count && stop[direction] == "lower_is_better" && stop[currency] == "USD", "\(stop)")

        let reset = try await Abctl.run(["safeguards", "reset", "e2e", "treatment", "--by", "ana"] + ["--db", db], environment: ["ABCTL_NOW": "2026-12-03T02:00:00Z"])
        #expect(reset.status == 0, "\(reset.stderr)")
        #expect(reset.stdout.contains("by ana at 2026-12-03T02:00:00"))
        let after = try await Abctl.run(["report", "e2e", "--format", "json"] + base, environment: ["ABCTL_NOW": "2026-12-03T03:00:00Z"])
        let lifted = (try JSONSerialization.jsonObject(with: Data(after.stdout.utf8)) as? [String: Any])?["safeguards"] as? [[String: Any]]
        #expect(lifted?.count == 1 && (lifted?.first?["reset_at"] as? String)?.hasPrefix("2026-12-03T02:00:00") == true, "\(after.stdout.prefix(500))")
        // As of a time before the stop, the report shows none.
        let before = try await Abctl.run(["report", "e2e", "--format", "json"] + base, environment: ["ABCTL_NOW": "2026-12-02T12:00:00Z"])
        #expect(((try JSONSerialization.jsonObject(with: Data(before.stdout.utf8)) as? [String: Any])?["safeguards"] as? [Any])?.isEmpty == true)
        let twice = try await Abctl.run(["safeguards", "reset", "e2e", "treatment"] + ["--db", db])
        #expect(twice.status == 1 && twice.stderr.contains("no safeguard stop in force for e2e treatment"))
        let bad = try await Abctl.run(["safeguards", "frobnicate"] + base)
        #expect(bad.status == 2)
    }

    /// A folder where nothing is watched says so, rather than "no stop" as if it had looked.
    @Test func checkSaysWhatItEvaluatedAndWhatIsUnguarded() async throws {
        let (folder, db) = try await Self.setUp()
        folder.write("e2e.json", Self.experiment().replacingOccurrences(of: #""safeguards": { "metrics": ["day0_cancel_rate"], "min_users": 100 },"#, with: ""))
        let base = ["--db", db, "--experiments", folder.path]
        let text = try await Abctl.run(["safeguards", "check"] + base, environment: ["ABCTL_NOW": "2026-12-03T00:00:00Z"])
        #expect(text.status == 0, "\(text.stdout)\(text.stderr)")
        #expect(text.stdout.contains("evaluated 0 experiments\n"), "\(text.stdout)")
        #expect(text.stdout.contains("1 running experiment without safeguards: e2e"), "\(text.stdout)")
        let json = try await Abctl.run(["safeguards", "check", "--format", "json"] + base, environment: ["ABCTL_NOW": "2026-12-03T00:00:00Z"])
        let body = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(body["experiments_evaluated"] as? [String] == [])
        #expect(body["without_safeguards"] as? [String] == ["e2e"])
    }
}
