import Foundation
import Testing
import TestSupport

/// The console on two `abctl serve` nodes sharing one PostgreSQL database: the lease holder
/// computes and stores the reports, the other node computes none and shows the stored figures
/// with the same as-of, and an exposure through the other node reaches both pages.
@Suite(.timeLimit(.minutes(3))) struct ServeConsoleTwoNodesTests {
    static let lease = "abctl_safeguard_lease_held", computed = "abctl_console_reports_computed_total"

    /// The page's line saying as of when its figures are, and when they were computed.
    static func asOf(_ node: ServeProcess) async throws -> String? {
        let text = try await node.request("GET", "/experiments/two-nodes").text
        guard let start = text.range(of: "Figures as of "), let end = text.range(of: " and stored for every server", range: start.upperBound..<text.endIndex) else { return nil }
        return String(text[start.lowerBound..<end.lowerBound])
    }

    @Test func theOtherNodeShowsTheLeadersStoredFiguresAndAsOf() async throws {
        let cluster = try await onOwnThread { try PostgresCluster.shared() }
        let url = try await onOwnThread { try cluster.createDatabase() }
        var nodes: [ServeProcess] = []
        for _ in 0..<2 {
            nodes.append(try await ServeProcess.start(arguments: ["--console-refresh-s", "0.5"], environment: ["ABCTL_NOW": "2026-12-20T00:00:00Z"],
                                                      database: url) { folder in
                try ServeTwoNodesTests.experiment.write(toFile: folder + "/two-nodes.json", atomically: true, encoding: .utf8)
            })
        }
        #expect(try await eventually(within: .seconds(20)) {
            var held: [Double] = []
            for node in nodes { held.append(try await ServeSafeguardsTests.metric(node, Self.lease) ?? -1) }
            return held.sorted() == [0, 1]
        })
        var (leader, other) = (nodes[0], nodes[1])
        if try await ServeSafeguardsTests.metric(leader, Self.lease) != 1 { swap(&leader, &other) }
        #expect(try await eventually(within: .seconds(60)) { try await Self.asOf(other) != nil })
        let first = try #require(try await Self.asOf(other))
        #expect(first.hasPrefix("Figures as of 2026-12-20T00:00:00Z, computed at "))
        #expect(try await Self.asOf(leader) == first)
        let database = String(url.split(separator: "/").last!)
        #expect(try await onOwnThread { try cluster.psql("SELECT summary FROM console_reports WHERE experiment = 'two-nodes'", database: database) }
            .contains(#""users":0"#))

        // An exposure through the other node: the leader computes again, both pages show it.
        let reply = try await other.request("POST", "/v1/events", body: ServeTwoNodesTests.exposure("e1", user: "pm-1", variant: "week"))
        #expect(reply.status == 200)
        #expect(try await eventually(within: .seconds(60)) { try await Self.asOf(other).map { $0 != first } ?? false })
        #expect(try await onOwnThread { try cluster.psql("SELECT summary FROM console_reports WHERE experiment = 'two-nodes'", database: database) }
            .contains(#""users":1"#))
        #expect(try await Self.asOf(leader) == Self.asOf(other))
        // Only the lease holder computed.
        #expect(try await ServeSafeguardsTests.metric(other, Self.computed) == 0)
        #expect(try await ServeSafeguardsTests.metric(leader, Self.computed) ?? 0 >= 5)
    }
}
