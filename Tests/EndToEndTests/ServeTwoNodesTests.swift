import Foundation
import Synchronization
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Two `abctl serve` nodes on one PostgreSQL database: any node answers as any other.
@Suite(.timeLimit(.minutes(3))) struct ServeTwoNodesTests {
    /// A sticky experiment every user is in: no targeting, the whole namespace.
    static let experiment = """
        {
          "$schema": "schema.json",
          "id": "two-nodes",
          "name": "Two nodes, one store",
          "status": "running",
          "sticky": true,
          "variants": [
            { "key": "control", "paywall": { "offering": "chorus_plus", "trial_days": 3, "copy": { "strategy": "static", "text": "Hear every bird." } } },
            { "key": "week", "paywall": { "offering": "chorus_plus", "trial_days": 7, "copy": { "strategy": "static", "text": "A week of birds." } } }
          ]
        }
        """

    static func startNodes(url: String, count: Int = 2) async throws -> [ServeProcess] {
        var nodes: [ServeProcess] = []
        for _ in 0..<count {
            nodes.append(try await ServeProcess.start(environment: ["ABCTL_NOW": "2026-12-20T00:00:00Z"], database: url) { folder in
                try experiment.write(toFile: folder + "/two-nodes.json", atomically: true, encoding: .utf8)
            })
        }
        return nodes
    }

    static func assign(_ connection: HTTPConnection, user: String) throws -> (variant: String?, reason: String?) {
        let reply = try connection.request("POST", "/v1/assign",
                                           body: Array(#"{"user_id":"\#(user)","attributes":{},"experiments":["two-nodes"]}"#.utf8))
        let first = (reply.json?["assignments"] as? [[String: Any]])?.first
        return (first?["variant"] as? String, first?["reason"] as? String)
    }

    static func exposure(_ id: String, user: String, variant: String) -> String {
        #"{"event_id":"\#(id)","type":"exposure","user_id":"\#(user)","experiment":"two-nodes","variant":"\#(variant)","ts":"2026-12-01T10:00:00Z"}"#
    }

    @Test func sixteenClientsAlternatingBetweenTwoNodesSeeOneStore() async throws {
        let cluster = try await onOwnThread { try PostgresCluster.shared() }
        let url = try await onOwnThread { try cluster.createDatabase() }
        let nodes = try await Self.startNodes(url: url)
        let ports = nodes.map(\.port)
        let failures = Mutex<[String]>([])
        let counts = Mutex((sent: 0, stored: 0, duplicate: 0))
        let group = DispatchGroup()
        for client in 0..<16 {
            group.onOwnThread {
                do {
                    let connections = try ports.map { try HTTPConnection(port: $0) }
                    for n in 0..<25 {
                        let user = "c\(client)-u\(n)"
                        let (a, b) = (connections[n % 2], connections[(n + 1) % 2])
                        let first = try Self.assign(a, user: user), second = try Self.assign(b, user: user)
                        guard let variant = first.variant, second.variant == variant else {
                            failures.withLock { $0.append("\(user): \(first) then \(second)") }
                            continue
                        }
                        // The exposure through one node, a trial through the other, then the exposure
                        // again through the other (a retry): one user's events on both nodes.
                        let bodies = [(a, Self.exposure("x", user: user, variant: variant)),
                                      (b, #"{"event_id":"t","type":"trial_started","user_id":"\#(user)","ts":"2026-12-01T10:05:00Z"}"#),
                                      (b, Self.exposure("x", user: user, variant: variant))]
                        for (connection, body) in bodies {
                            let reply = try connection.request("POST", "/v1/events", body: Array(body.utf8))
                            guard reply.status == 200 else {
                                failures.withLock { $0.append("\(user): events \(reply.status) \(reply.text)") }
                                continue
                            }
                            counts.withLock {
                                $0.sent += 1
                                $0.stored += reply.json?["stored"] as? Int ?? 0
                                $0.duplicate += reply.json?["duplicate"] as? Int ?? 0
                            }
                        }
                    }
                } catch {
                    failures.withLock { $0.append("client \(client): \(error)") }
                }
            }
        }
        await group.finished()
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0.prefix(5) })")
        let totals = counts.withLock { $0 }
        #expect(totals.sent == 16 * 25 * 3)
        #expect(totals.stored == 16 * 25 * 2)
        #expect(totals.duplicate == 16 * 25)
        let database = String(url.split(separator: "/").last!)
        let (events, trials) = try await onOwnThread {
            (try cluster.psql("SELECT count(*) FROM events", database: database),
             try cluster.psql("SELECT count(*) FROM facts WHERE trial_start_ts IS NOT NULL", database: database))
        }
        #expect(events == String(16 * 25 * 2))
        #expect(trials == String(16 * 25))

        var reports: [HTTPReply] = []
        for node in nodes { reports.append(try await node.request("GET", "/v1/experiments/two-nodes/report")) }
        #expect(reports.map(\.status) == [200, 200])
        // Byte for byte: both nodes stamp their reports with ABCTL_NOW, as `abctl report` does.
        #expect(reports[0].text == reports[1].text)
        #expect(reports[0].text.count > 1000)
        #expect((reports[0].json?["generated_at"] as? String)?.hasPrefix("2026-12-20T00:00:00") == true)
        #expect(reports[0].json?["users"] as? Int == 16 * 25)
    }

    @Test func anExposureThroughOneNodeIsStickyOnTheOther() async throws {
        let url = try await onOwnThread { try PostgresCluster.shared().createDatabase() }
        let nodes = try await Self.startNodes(url: url)
        let (a, b) = (try nodes[0].connect(), try nodes[1].connect())
        for n in 0..<20 {
            let user = "sticky-\(n)"
            let hashed = try #require(try Self.assign(b, user: user).variant)
            let other = hashed == "control" ? "week" : "control"
            let reply = try a.request("POST", "/v1/events", body: Array(Self.exposure("s", user: user, variant: other).utf8))
            #expect(reply.status == 200)
            let after = try Self.assign(b, user: user)
            #expect(after.variant == other, "\(user)")
            #expect(after.reason == "sticky", "\(user)")
        }
    }
}
