import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Safeguards in `abctl serve` (docs/Safeguards.md): the schedule, stops on every node (notifications: ServeNotificationsTests).
/// The data is `SafeguardsCommandTests`' (the treatment doubles Day-0 cancels); `ABCTL_NOW` puts
/// evaluations on 3 December, when every trial starter is mature.
@Suite(.timeLimit(.minutes(3))) struct ServeSafeguardsTests {
    static let now = ["ABCTL_NOW": "2026-12-03T00:00:00Z"]

    /// A folder with the guarded experiment (and the shipped ones the server copies too).
    static func experiments(checkMinutes: Double) -> (String) throws -> Void {
        { folder in try SafeguardsCommandTests.experiment(checkMinutes: checkMinutes).write(toFile: folder + "/e2e.json", atomically: true, encoding: .utf8) }
    }

    static func ingest(db: String) async throws {
        let folder = AssignCommandTests.folder()
        folder.write("e2e.json", SafeguardsCommandTests.experiment())
        let ingest = try await Abctl.run(["ingest", "-", "--db", db, "--experiments", folder.path], stdin: SafeguardsCommandTests.eventLines())
        #expect(ingest.status == 0, "\(ingest.stderr)")
    }

    static func assign(_ node: ServeProcess, user: String) async throws -> (variant: String?, reason: String?) {
        let reply = try await node.request("POST", "/v1/assign", body: #"{"user_id":"\#(user)","attributes":{},"experiments":["e2e"]}"#)
        let first = (reply.json?["assignments"] as? [[String: Any]])?.first
        return (first?["variant"] as? String, first?["reason"] as? String)
    }

    /// Users the hash puts in the treatment (before any stop).
    static func treatmentUsers(_ node: ServeProcess) async throws -> [String] {
        var users: [String] = []
        for n in 0..<40 where try await assign(node, user: "probe-\(n)").variant == "treatment" { users.append("probe-\(n)") }
        return users
    }

    /// The stops in force on `e2e`, as `GET /v1/experiments` shows them.
    static func stops(_ node: ServeProcess) async throws -> [[String: Any]] {
        let reply = try await node.request("GET", "/v1/experiments")
        let e2e = (reply.json?["experiments"] as? [[String: Any]])?.first { $0["id"] as? String == "e2e" }
        return e2e?["safeguard_stops"] as? [[String: Any]] ?? []
    }

    /// A gauge or counter of `/metrics`.
    static func metric(_ node: ServeProcess, _ name: String) async throws -> Double? {
        let text = try await node.request("GET", "/metrics").text
        return text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.split(separator: " ").last ?? "") }
    }

    @Test func aStopIsShownLoggedCountedInThePayloadAndLiftedByAReset() async throws {
        let folder = TemporaryFolder()
        let db = folder.path + "/events.sqlite"
        try await Self.ingest(db: db)
        // An hour between checks: the first runs at start, and nothing stops the arm again after the reset.
        let node = try await ServeProcess.start(environment: Self.now, database: db, experiments: Self.experiments(checkMinutes: 60))
        #expect(try await eventually(within: .seconds(10)) { try await !Self.stops(node).isEmpty })
        let stops = try await Self.stops(node)
        #expect(stops.count == 1 && stops.first?["arm"] as? String == "treatment" && stops.first?["metric"] as? String == "day0_cancel_rate")
        #expect(((stops.first?["figures"] as? [String: Any])?["interval"] as? [Double])?.first ?? 0 > 0)
        let users = try await Self.treatmentUsers(node)
        #expect(users.isEmpty, "a stopped arm assigns nobody")
        var safeguarded = 0
        for n in 0..<40 where try await Self.assign(node, user: "probe-\(n)").reason == "safeguard" { safeguarded += 1 }
        #expect(safeguarded > 5, "the arm's users get the control's paywall, reason safeguard")
        #expect(try await Self.metric(node, "abctl_safeguard_stops_in_force") == 1)
        #expect(try await Self.metric(node, "abctl_safeguard_stops_total") == 1)
        #expect(try await Self.metric(node, "abctl_safeguard_lease_held") == 1)
        let logged = node.logLines.filter { $0["msg"] as? String == "safeguard stop" }
        #expect(logged.count == 1 && (logged.first?["text"] as? String)?.contains("Safeguard stopped arm 'treatment' of e2e") == true)
        let payload = try await node.request("GET", "/api/features/any").text
        #expect(payload.contains("Hear every bird.") && !payload.contains("Hear more birds."), "the stopped arm's variation is the control's paywall")

        let reset = try await Abctl.run(["safeguards", "reset", "e2e", "treatment", "--by", "ana", "--db", db])
        #expect(reset.status == 0, "\(reset.stderr)")
        let clock = ContinuousClock.now
        #expect(try await eventually(within: .seconds(10)) { try await Self.stops(node).isEmpty })
        #expect(try await eventually(within: .seconds(10)) { try await node.request("GET", "/api/features/any").text.contains("Hear more birds.") })
        #expect(ContinuousClock.now - clock < .seconds(10))
        #expect(try await !Self.treatmentUsers(node).isEmpty)
    }

    @Test func aStopMadeByOneNodeIsHonouredByTheOtherWithinTenSeconds() async throws {
        let url = try await onOwnThread { try PostgresCluster.shared().createDatabase() }
        var nodes: [ServeProcess] = []
        for _ in 0..<2 {
            nodes.append(try await ServeProcess.start(environment: Self.now, database: url, experiments: Self.experiments(checkMinutes: 0.02)))
        }
        // One node holds the lease; the other only reads stops.
        #expect(try await eventually(within: .seconds(10)) {
            var held: [Double] = []
            for node in nodes { held.append(try await Self.metric(node, "abctl_safeguard_lease_held") ?? -1) }
            return held.sorted() == [0, 1]
        })
        var leader = nodes[0], follower = nodes[1]
        if try await Self.metric(leader, "abctl_safeguard_lease_held") != 1 { swap(&leader, &follower) }
        let users = try await Self.treatmentUsers(follower)
        #expect(!users.isEmpty)
        let before = try await follower.request("GET", "/api/features/any").text

        try await Self.ingest(db: url)
        #expect(try await eventually(within: .seconds(30)) { try await !Self.stops(leader).isEmpty })
        let stopped = ContinuousClock.now
        #expect(try await eventually(within: .seconds(10)) {
            for user in users where try await Self.assign(follower, user: user).reason != "safeguard" { return false }
            return true
        })
        #expect(try await eventually(within: .seconds(10)) { try await follower.request("GET", "/api/features/any").text != before })
        let took = ContinuousClock.now - stopped
        #expect(took < .seconds(10), "the other node honoured the stop after \(took)")
        #expect(try await Self.metric(follower, "abctl_safeguard_stops_total") == 0)
        #expect(try await Self.metric(leader, "abctl_safeguard_stops_total") == 1)
        #expect(try await Self.stops(follower).count == 1)
    }

    @Test func killingTheEvaluatingNodeLeavesAWholeStopOrNoneAndTheOtherTakesOver() async throws {
        let cluster = try await onOwnThread { try PostgresCluster.shared() }
        let url = try await onOwnThread { try cluster.createDatabase() }
        let database = String(url.split(separator: "/").last!)
        var nodes: [ServeProcess] = []
        for _ in 0..<2 {
            nodes.append(try await ServeProcess.start(environment: Self.now, database: url, experiments: Self.experiments(checkMinutes: 0.01)))
        }
        #expect(try await eventually(within: .seconds(10)) {
            var held: [Double] = []
            for node in nodes { held.append(try await Self.metric(node, "abctl_safeguard_lease_held") ?? -1) }
            return held.sorted() == [0, 1]
        })
        var leader = nodes[0], survivor = nodes[1]
        if try await Self.metric(leader, "abctl_safeguard_lease_held") != 1 { swap(&leader, &survivor) }
        // The leader evaluates every 0.6 s while the events arrive; it dies wherever it is.
        try await Self.ingest(db: url)
        await leader.stop()
        let rows = try await onOwnThread { try cluster.psql("SELECT count(*) FROM safeguard_stops", database: database) }
        #expect(["0", "1"].contains(rows))
        if rows == "1" {
            let figures = try await onOwnThread { try cluster.psql("SELECT figures FROM safeguard_stops", database: database) }
            let parsed = try JSONSerialization.jsonObject(with: Data(figures.utf8)) as? [String: Any]
            #expect(parsed?["arm_users"] as? Int ?? 0 > 0 && (parsed?["interval"] as? [Double])?.count == 2, "\(figures)")
        }
        // The survivor takes the lease, evaluates, and there is one stop, in force on it.
        #expect(try await eventually(within: .seconds(15)) { try await Self.metric(survivor, "abctl_safeguard_lease_held") == 1 })
        #expect(try await eventually(within: .seconds(10)) { try await Self.metric(survivor, "abctl_safeguard_evaluations_total") ?? 0 > 0 })
        #expect(try await eventually(within: .seconds(10)) { try await Self.stops(survivor).count == 1 })
        #expect(try await onOwnThread { try cluster.psql("SELECT count(*) FROM safeguard_stops", database: database) } == "1")
    }
}
