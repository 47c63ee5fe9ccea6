import Foundation
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Bandits through the binary (docs/Bandits.md): `abctl allocation update` records each due
/// period once, `show` prints them, the GrowthBook export leaves the bandit out, and a server
/// records the current period under its lease and answers with it.
@Suite(.timeLimit(.minutes(3))) struct AllocationCommandTests {
    static let start = "2026-12-01T00:00:00Z"

    static func bandit() -> String {
        func variant(_ key: String) -> String {
            #"{ "key": "\#(key)", "paywall": { "offering": "chorus_plus", "trial_days": 3, "copy": { "strategy": "static", "text": "Hear every bird." } } }"#
        }
        return """
        { "$schema": "schema.json", "id": "lines", "name": "Ten lines", "status": "running", "start": "\(start)",
          "allocation": { "type": "bandit", "reward": "trial_start_rate", "update_hours": 24, "min_share": 0.05, "burn_in_users": 100 },
          "variants": [ \(["control", "b", "c"].map(variant).joined(separator: ", ")) ] }
        """
    }

    /// 1,500 users exposed on 1 December, 500 per arm; trial starts within the hour: 10% on
    /// control and b, 40% on c.
    static func eventLines() -> String {
        var lines: [String] = []
        var rng = SeededGenerator(seed: 42)
        for n in 0..<1500 {
            let arm = ["control", "b", "c"][n % 3]
            let minute = n % 1440
            let ts = String(format: "2026-12-01T%02d:%02d:00Z", minute / 60, minute % 60)
            lines.append(#"{"event_id":"x\#(n)","type":"exposure","user_id":"u\#(n)","experiment":"lines","variant":"\#(arm)","ts":"\#(ts)","allocation_period":"\#(start)"}"#)
            if Double.random(in: 0..<1, using: &rng) < (arm == "c" ? 0.4 : 0.1) {
                lines.append(#"{"event_id":"t\#(n)","type":"trial_started","user_id":"u\#(n)","ts":"\#(ts)"}"#)
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func setUp() async throws -> (TemporaryFolder, String) {
        let folder = AssignCommandTests.folder()
        folder.write("lines.json", bandit())
        let db = folder.path + "/abctl.sqlite"
        let ingest = try await Abctl.run(["ingest", "-", "--db", db, "--experiments", folder.path], stdin: eventLines())
        #expect(ingest.status == 0, "\(ingest.stderr)")
        return (folder, db)
    }

    @Test func updateRecordsEachDuePeriodOnceAndShowPrintsThem() async throws {
        let (folder, db) = try await Self.setUp()
        let base = ["--db", db, "--experiments", folder.path]
        let at = ["ABCTL_NOW": "2026-12-03T00:30:00Z"]
        let update = try await Abctl.run(["allocation", "update"] + base, environment: at)
        #expect(update.status == 0, "\(update.stdout)\(update.stderr)")
        #expect(update.stdout.contains("recorded 3 periods"), "\(update.stdout)")
        let again = try await Abctl.run(["allocation", "update"] + base, environment: at)
        #expect(again.stdout.contains("no period due"), "\(again.stdout)")

        let show = try await Abctl.run(["allocation", "show", "lines", "--format", "json"] + base)
        #expect(show.status == 0, "\(show.stderr)")
        let body = try #require(try JSONSerialization.jsonObject(with: Data(show.stdout.utf8)) as? [String: Any])
        let periods = try #require(body["lines"] as? [[String: Any]])
        // Period 0 is the file's; period 1's boundary passed before anyone ran an update, so the
        // weights in force through it stayed (carried); period 2 learned from the mature users.
        #expect(periods.map { $0["rule"] as? String } == ["first", "carried", "learned"])
        #expect(periods.map { $0["from"] as? String } == ["2026-12-01T00:00:00Z", "2026-12-02T00:00:00Z", "2026-12-03T00:00:00Z"])
        let learned = try #require(periods.last?["weights"] as? [String: Double])
        #expect(learned["c"]! > 0.85 && learned["control"]! >= 0.05 - 1e-9 && learned["b"]! >= 0.05 - 1e-9, "\(learned)")
        let basis = try #require(periods.last?["basis"] as? [String: [String: Double]])
        #expect(basis["c"]?["users"] == 500)

        let text = try await Abctl.run(["allocation", "show"] + base)
        #expect(text.stdout.contains("lines: 3 periods recorded"), "\(text.stdout)")
        let notBandit = try await Abctl.run(["allocation", "show", "nope"] + base)
        #expect(notBandit.status == 2)

        // The GrowthBook payload leaves the bandit out and says why.
        let export = try await Abctl.run(["export", "--format", "growthbook", "--experiments", folder.path], environment: at)
        let payload = try #require(try JSONSerialization.jsonObject(with: Data(export.stdout.utf8)) as? [String: Any], "\(export.stderr)")
        #expect((payload["features"] as? [String: Any])?["lines"] == nil)
        let omitted = try #require(payload["omitted"] as? [[String: Any]])
        #expect(omitted.first?["experiment"] as? String == "lines")
    }

    /// `abctl simulate` honours the periods: at each boundary of simulated time it records the
    /// period from the mature rewards so far and draws later arrivals with it, so the report's
    /// per-period sample ratio check holds and the weights moved.
    @Test func simulateDrawsWithEachPeriodsWeights() async throws {
        let folder = AssignCommandTests.folder()
        folder.write("lines.json", Self.bandit())
        let db = folder.path + "/sim.sqlite"
        let base = ["--db", db, "--experiments", folder.path]
        let sim = try await Abctl.run(["simulate", "--users", "12000", "--days", "8", "--tail-days", "2"] + base)
        #expect(sim.status == 0, "\(sim.stderr)")
        let report = try await Abctl.run(["report", "lines", "--format", "json"] + base, environment: ["ABCTL_NOW": "2026-12-11T00:00:00Z"])
        let body = try #require(try JSONSerialization.jsonObject(with: Data(report.stdout.utf8)) as? [String: Any], "\(report.stderr)")
        let periods = try #require((body["allocation"] as? [String: Any])?["periods"] as? [[String: Any]])
        #expect(periods.count >= 8)
        #expect(periods.compactMap { $0["rule"] as? String }.contains("learned"))
        let srm = try #require(body["srm"] as? [String: Any])
        #expect((srm["p_value"] as? Double ?? 0) > 0.001, "\(srm)")
        // Drawn with the learned weights, the last period's users are not an equal split.
        let last = try #require(periods.last { ($0["users"] as? [String: Int])?.values.reduce(0, +) ?? 0 > 0 })
        let weights = try #require(last["weights"] as? [String: Double])
        #expect(weights.values.contains { abs($0 - 1.0 / 3) > 0.05 }, "\(weights)")
    }

    /// A server records the current period under its lease and every answer names it; the
    /// exposure that echoes it is stored.
    @Test func aServerAnswersWithTheCurrentPeriod() async throws {
        let (folder, db) = try await Self.setUp()
        let node = try await ServeProcess.start(database: db) { experiments in
            try Self.bandit().write(toFile: experiments + "/lines.json", atomically: true, encoding: .utf8)
        }
        defer { Task { await node.stop() } }
        _ = folder
        let startDate = ISO8601DateFormatter().date(from: Self.start)!
        let index = Int(Date().timeIntervalSince(startDate) / 86_400)
        let expected = ISO8601DateFormatter().string(from: startDate.addingTimeInterval(Double(index) * 86_400))
        var answer: [String: Any] = [:]
        let answered = await eventually(within: .seconds(20)) {
            let reply = try? await node.request("POST", "/v1/assign", body: #"{"user_id":"new-1","attributes":{},"experiments":["lines"]}"#)
            answer = (reply?.json?["assignments"] as? [[String: Any]])?.first ?? [:]
            return (answer["allocation_period"] as? String)?.hasPrefix(String(expected.prefix(19))) == true
        }
        #expect(answered, "\(answer)")
        let periods = try await node.query("SELECT period, rule FROM allocation_periods WHERE experiment = 'lines' ORDER BY period")
        #expect(periods.count == index + 1 && periods.last?[1] == "learned", "\(periods)")
        let variant = try #require(answer["variant"] as? String)
        let exposure = #"{"event_id":"e-new-1","type":"exposure","user_id":"new-1","experiment":"lines","variant":"\#(variant)","ts":"\#(ISO8601DateFormatter().string(from: Date()))","allocation_period":"\#(answer["allocation_period"] as! String)"}"#
        let stored = try await node.request("POST", "/v1/events", body: exposure)
        #expect(stored.status == 200, "\(stored.text)")
    }
}

/// Two nodes on one PostgreSQL through period boundaries, the lease holder killed:
/// one record per period, none skipped, and the survivor takes over and answers with the new one.
@Suite(.timeLimit(.minutes(3))) struct AllocationFailoverTests {
    @Test func killingTheLeaseHolderNeitherRepeatsNorSkipsAPeriod() async throws {
        let cluster = try await onOwnThread { try PostgresCluster.shared() }
        let url = try await onOwnThread { try cluster.createDatabase() }
        let database = String(url.split(separator: "/").last!)
        // Periods of 18 s from a minute ago, on the real clock.
        let start = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 / 60).rounded(.down) * 60 - 60)
        let startText = ISO8601DateFormatter().string(from: start)
        let file = AllocationCommandTests.bandit().replacingOccurrences(of: AllocationCommandTests.start, with: startText)
            .replacingOccurrences(of: #""update_hours": 24"#, with: #""update_hours": 0.005"#)
        var nodes: [ServeProcess] = []
        for _ in 0..<2 {
            nodes.append(try await ServeProcess.start(database: url) { try file.write(toFile: $0 + "/lines.json", atomically: true, encoding: .utf8) })
        }
        let started = nodes
        defer { Task { for n in started { await n.stop() } } }
        #expect(try await eventually(within: .seconds(10)) {
            var held: [Double] = []
            for node in nodes { held.append(try await ServeSafeguardsTests.metric(node, "abctl_safeguard_lease_held") ?? -1) }
            return held.sorted() == [0, 1]
        })
        var leader = nodes[0], survivor = nodes[1]
        if try await ServeSafeguardsTests.metric(leader, "abctl_safeguard_lease_held") != 1 { swap(&leader, &survivor) }
        func periods() async throws -> [Int] {
            try await onOwnThread { try cluster.psql("SELECT period FROM allocation_periods WHERE experiment = 'lines' ORDER BY period", database: database) }
                .split(whereSeparator: \.isNewline).compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        }
        func current() -> Int { Int(Date().timeIntervalSince(start) / 18) }
        #expect(try await eventually(within: .seconds(10)) { try await periods().last == current() })
        leader.signal(SIGKILL)
        let killedIn = current()
        // The survivor takes the lease and records the next boundary's period; both answers agree.
        #expect(try await eventually(within: .seconds(45)) { try await (periods().last ?? 0) > killedIn })
        let recorded = try await periods()
        #expect(recorded == Array(0...(recorded.last ?? 0)), "\(recorded)")
        #expect(try await ServeSafeguardsTests.metric(survivor, "abctl_safeguard_lease_held") == 1)
        let latest = start.addingTimeInterval(Double(recorded.last!) * 18)
        let answered = await eventually(within: .seconds(10)) {
            let reply = try? await survivor.request("POST", "/v1/assign", body: #"{"user_id":"after-kill","attributes":{},"experiments":["lines"]}"#)
            let period = ((reply?.json?["assignments"] as? [[String: Any]])?.first?["allocation_period"] as? String).flatMap { ISO8601DateFormatter().date(from: String($0.prefix(19)) + "Z") }
            return period.map { $0 >= latest } ?? false
        }
        #expect(answered)
    }
}
