import Foundation
import Synchronization
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Two nodes on one PostgreSQL under event load, through faults: nothing acknowledged is lost.
@Suite(.timeLimit(.minutes(3))) struct ServePostgresFaultTests {
    /// Clients post batches of 50 events, alternating between `ports`, until `stop`; each
    /// acknowledged body is kept, and every answer's status counted.
    final class Load: @unchecked Sendable {
        let acknowledged = Batches()
        let statuses = Mutex<[Int: Int]>([:])
        /// When each node last answered 200, in seconds since the load began.
        let lastOK = Mutex<[UInt16: Double]>([:])
        let stop = Flag()
        let group = DispatchGroup()
        let start = Date()

        init(ports: [UInt16], clients: Int, prefix: String) {
            for client in 0..<clients {
                group.onOwnThread { [self] in
                    var batch = 0
                    var connections: [UInt16: HTTPConnection] = [:]
                    while !stop.value.load(ordering: .acquiring) {
                        let port = ports[(client + batch) % ports.count]
                        let body = (0..<50).map {
                            #"{"event_id":"\#(prefix)-\#(client)-\#(batch)-\#($0)","type":"trial_started","user_id":"\#(prefix)u-\#(client)-\#($0)","ts":"2026-12-01T10:00:00Z"}"#
                        }.joined(separator: "\n")
                        batch += 1
                        guard let connection = try? connections[port] ?? HTTPConnection(port: port, timeoutSeconds: 10),
                              let reply = try? connection.request("POST", "/v1/events", body: Array(body.utf8)) else {
                            connections[port] = nil
                            usleep(20_000)
                            continue
                        }
                        connections[port] = connection
                        statuses.withLock { $0[reply.status, default: 0] += 1 }
                        if reply.status == 200, (reply.json?["stored"] as? Int ?? 0) + (reply.json?["duplicate"] as? Int ?? 0) == 50 {
                            acknowledged.add(body)
                            let now = Date().timeIntervalSince(start)
                            lastOK.withLock { $0[port] = now }
                        } else {
                            usleep(20_000)
                        }
                    }
                }
            }
        }

        func finish() async {
            stop.value.store(true, ordering: .releasing)
            await group.finished()
        }

        var seconds: Double { Date().timeIntervalSince(start) }
    }

    /// Every acknowledged body sent again through `port` must come back all duplicates; sent 20
    /// bodies (1,000 events) a request, so that the check stays short on a busy machine.
    static func expectAllStored(_ bodies: [String], port: UInt16) throws {
        let connection = try HTTPConnection(port: port)
        var duplicates = 0, stored = 0
        for start in stride(from: 0, to: bodies.count, by: 20) {
            let body = bodies[start..<min(start + 20, bodies.count)].joined(separator: "\n")
            let reply = try connection.request("POST", "/v1/events", body: Array(body.utf8))
            #expect(reply.status == 200)
            duplicates += reply.json?["duplicate"] as? Int ?? 0
            stored += reply.json?["stored"] as? Int ?? 0
        }
        #expect(duplicates == bodies.count * 50)
        #expect(stored == 0, "acknowledged events missing from the store")
    }

    @Test func aPostgresRestartUnderLoadAnswers503AndLosesNothingAcknowledged() async throws {
        // A cluster of the test's own: restarting the shared one would disturb other tests.
        let began = Date()
        /// Each phase's time, printed as it ends: a run that overruns shows where.
        func phase(_ name: String) { print("restart test: \(name) at \(String(format: "%.1f", Date().timeIntervalSince(began))) s") }
        let cluster = try await onOwnThread { try PostgresCluster.startOwn() }
        defer { cluster.remove() }
        let url = try await onOwnThread { try cluster.createDatabase() }
        let nodes = try await ServeTwoNodesTests.startNodes(url: url)
        let ports = nodes.map(\.port)
        phase("cluster and nodes up")
        let load = Load(ports: ports, clients: 8, prefix: "r")
        #expect(await eventually(within: .seconds(20)) { load.acknowledged.count >= 100 })

        phase("load acknowledged")
        try await onOwnThread { try cluster.stop() }
        phase("PostgreSQL stopped")
        let down = load.seconds
        try await Task.sleep(for: .seconds(2))
        let okDuringOutage = load.lastOK.withLock { $0 }.values.filter { $0 > down + 0.5 }.count
        try await onOwnThread { try cluster.start() }
        phase("PostgreSQL started")
        let back = load.seconds
        // Both nodes acknowledge again within 5 s of the server's return, by themselves.
        let reconnected = await eventually(within: .seconds(5)) {
            load.lastOK.withLock { ok in ports.allSatisfy { (ok[$0] ?? 0) > back } }
        }
        let reconnectSeconds = load.lastOK.withLock { ok in ports.map { (ok[$0] ?? .infinity) - back }.max() ?? .infinity }
        try await Task.sleep(for: .milliseconds(500))
        await load.finish()
        phase("load stopped")
        let statuses = load.statuses.withLock { $0 }
        print("restart test: \(load.acknowledged.count * 50) events acknowledged, statuses \(statuses), reconnected \(String(format: "%.2f", reconnectSeconds)) s after the restart")
        #expect(reconnected, "a node did not acknowledge within 5 s of PostgreSQL's return")
        #expect(okDuringOutage == 0, "a node acknowledged while PostgreSQL was down")
        #expect((statuses[503] ?? 0) > 0, "no 503 during the outage")
        #expect(Set(statuses.keys).isSubset(of: [200, 503]))
        try Self.expectAllStored(load.acknowledged.all, port: ports[1])
        phase("acknowledged events checked")
    }

    /// Both nodes serve, then sit idle while PostgreSQL restarts: each node's first request of
    /// each kind afterwards (events, a report, an assign with its sticky lookup) is answered 200
    /// or 503, its second 200, and every event acknowledged is stored once.
    @Test func nodesIdleThroughADatabaseRestartAnswerTheirSecondRequest() async throws {
        let cluster = try await onOwnThread { try PostgresCluster.startOwn() }
        defer { cluster.remove() }
        let url = try await onOwnThread { try cluster.createDatabase() }
        let database = String(url.split(separator: "/").last!)
        let nodes = try await ServeTwoNodesTests.startNodes(url: url)
        var acknowledged: [String] = []
        /// The status of one exposure posted through `node`, and its id when it was stored.
        @Sendable func postEvent(_ node: ServeProcess, _ id: String) async throws -> (status: Int, stored: String?) {
            let reply = try await node.request("POST", "/v1/events", body: ServeTwoNodesTests.exposure(id, user: "user-\(id)", variant: "control"))
            return (reply.status, reply.status == 200 && reply.json?["stored"] as? Int == 1 ? id : nil)
        }
        let report = "/v1/experiments/two-nodes/report"
        let assign = #"{"user_id":"user-n0-0","attributes":{},"experiments":["two-nodes"]}"#
        // Both nodes serve, several requests at once, so that each holds several connections.
        for (n, node) in nodes.enumerated() {
            try await withThrowingTaskGroup(of: (status: Int, stored: String?).self) { group in
                for k in 0..<8 { group.addTask { try await postEvent(node, "n\(n)-\(k)") } }
                // Two reports: as many as a node computes at once (a third is answered 503 reports_busy).
                for _ in 0..<2 { group.addTask { (try await node.request("GET", report).status, nil) } }
                for _ in 0..<4 { group.addTask { (try await node.request("POST", "/v1/assign", body: assign).status, nil) } }
                for try await answer in group {
                    #expect(answer.status == 200)
                    if let id = answer.stored { acknowledged.append(id) }
                }
            }
        }
        try await onOwnThread {
            try cluster.stop()
            try cluster.start()
        }
        var answers: [String] = []
        for (n, node) in nodes.enumerated() {
            let posted = [try await postEvent(node, "after-n\(n)-1"), try await postEvent(node, "after-n\(n)-2")]
            acknowledged += posted.compactMap(\.stored)
            let events = posted.map(\.status)
            let reports = [try await node.request("GET", report).status, try await node.request("GET", report).status]
            let assigns = [try await node.request("POST", "/v1/assign", body: assign).status,
                           try await node.request("POST", "/v1/assign", body: assign).status]
            answers.append("node \(n): events \(events), reports \(reports), assigns \(assigns)")
            for statuses in [events, reports, assigns] {
                #expect([200, 503].contains(statuses[0]))
                #expect(statuses[1] == 200, "node \(n): \(statuses)")
            }
        }
        print("restart while idle: \(answers.joined(separator: "; "))")
        let ids = acknowledged
        let stored = try await onOwnThread {
            try cluster.psql("SELECT count(*), count(DISTINCT event_id) FROM events", database: database)
        }
        #expect(stored == "\(ids.count)|\(ids.count)")
        #expect(ids.count >= 16 + 2)
    }

    @Test func aNodeKilledUnderLoadLosesNothingItAcknowledged() async throws {
        let url = try await onOwnThread { try PostgresCluster.shared().createDatabase() }
        let nodes = try await ServeTwoNodesTests.startNodes(url: url)
        let load = Load(ports: [nodes[0].port], clients: 8, prefix: "k")
        #expect(await eventually(within: .seconds(20)) { load.acknowledged.count >= 200 })
        nodes[0].signal(SIGKILL)
        #expect(await nodes[0].exit(within: .seconds(10)) != nil)
        await load.finish()
        print("kill test (PostgreSQL): \(load.acknowledged.count * 50) events acknowledged by the killed node")
        try Self.expectAllStored(load.acknowledged.all, port: nodes[1].port)
    }
}
