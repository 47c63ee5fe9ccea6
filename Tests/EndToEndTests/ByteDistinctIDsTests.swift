import Foundation
import Testing
import TestSupport

/// Two ids that are canonically equivalent but differ in their bytes ("r\u{E9}": é as one code
/// point; "re\u{301}": e and a combining accent) are two ids everywhere, as both stores compare
/// them: through `abctl ingest`, `POST /v1/events`, the RevenueCat and App Store webhooks, sticky
/// assignment and the report, on SQLite and on PostgreSQL. Swift's `==` takes them for one, which
/// is how such bugs were made.
@Suite(.timeLimit(.minutes(3))) struct ByteDistinctIDsTests {
    enum Store: String, CaseIterable, Sendable { case sqlite, postgres }

    static let composed = "r\u{E9}", decomposed = "re\u{301}"
    static let experiment = "chorus-paywall-copy"
    static let bundle = "com.example.chorus"

    static func bytes(_ s: String?) -> [UInt8]? { s.map { Array($0.utf8) } }

    @Test(arguments: Store.allCases)
    func everyPathKeepsThemApart(_ store: Store) async throws {
        #expect(Self.composed == Self.decomposed, "the premise: Swift's String equality takes them for one")
        #expect(Self.bytes(Self.composed) != Self.bytes(Self.decomposed))
        let folder = TemporaryFolder()
        let database = store == .sqlite ? folder.path + "/events.sqlite" : try PostgresCluster.shared().createDatabase()
        // Inside the experiment's namespace; hashed to `control` (A) and `name` (B), so the sticky
        // answers below (`name`, `ai`) can only come from each user's own exposure.
        let userA = "u3-" + Self.composed, userB = "u3-" + Self.decomposed

        // ingest: userA is exposed to `name`, and two purchases whose event ids differ only in bytes are two events.
        func line(_ id: String, _ type: String, _ user: String, _ extra: String = "") -> String {
            #"{"event_id":"\#(id)","type":"\#(type)","user_id":"\#(user)","ts":"2026-12-01T10:00:00Z"\#(extra)}"#
        }
        _ = folder.write("events.ndjson", [
            line("x", "exposure", userA, #","experiment":"\#(Self.experiment)","variant":"name""#),
            line("p-" + Self.composed, "purchased", userA, #","revenue":1"#),
            line("p-" + Self.decomposed, "purchased", userA, #","revenue":2"#),
        ].joined(separator: "\n") + "\n")
        let ingest = try await Abctl.run(["ingest", folder.path + "/events.ndjson", "--db", database, "--experiments", Abctl.packageRoot + "/Experiments"])
        #expect(ingest.status == 0, "\(ingest.stderr)")
        #expect(ingest.stdout.contains("stored 3, duplicate 0, rejected 0"), "\(ingest.stdout)")

        let appStore = TemporaryFolder()
        let python = Abctl.packageRoot + "/.venv/bin/python"
        let script = try await ChildProcess.run(python, [Abctl.packageRoot + "/Tests/EndToEndTests/Fixtures/appstore/notifications.py", appStore.path, Self.bundle,
                                                        #"["\#(userA)", "\#(userB)"]"#])
        #expect(script.status == 0, "\(script.stderr.suffix(2000))")
        let cases = try #require(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: appStore.path + "/cases.json"))) as? [[String: Any]])

        let server = try await ServeProcess.start(arguments: ["--appstore-root-ca", appStore.path + "/root.pem", "--appstore-bundle-id", Self.bundle, "--appstore-environment", "sandbox"],
                                    environment: ["ABCTL_API_KEYS": "k1:ingest,assign,admin", "ABCTL_REVENUECAT_AUTH": "Bearer rc"], database: database)
        let key = ["Authorization": "Bearer k1"]

        // /v1/events: userB, the same event id "x" as userA's exposure, to another variant: another user's event.
        let posted = try await server.request("POST", "/v1/events", headers: key, body: [
            line("x", "exposure", userB, #","experiment":"\#(Self.experiment)","variant":"ai""#),
            line("p-" + Self.composed, "purchased", userA, #","revenue":1"#),   // a retry of an ingested event
        ].joined(separator: "\n"))
        #expect(posted.status == 200, "\(posted.text)")
        #expect(posted.json?["stored"] as? Int == 1 && posted.json?["duplicate"] as? Int == 1, "\(posted.text)")

        // RevenueCat: the same webhook id for the two users is two events; a retry is a duplicate.
        for (user, retry) in [(userA, false), (userB, false), (userB, true)] {
            let body = #"{"event":{"type":"NON_RENEWING_PURCHASE","id":"rc-\#(Self.composed)","app_user_id":"\#(user)","price":4,"purchased_at_ms":1764583200000}}"#
            let reply = try await server.request("POST", "/v1/webhooks/revenuecat", headers: ["Authorization": "Bearer rc"], body: body)
            #expect(reply.status == 200, "\(reply.text)")
            #expect(reply.json?["status"] as? String == (retry ? "duplicate" : "stored"), "\(user): \(reply.text)")
        }
        // App Store: one signed purchase for each user, each stored for its own user.
        for user in [userA, userB] {
            let c = try #require(cases.first { Self.bytes($0["name"] as? String) == Self.bytes("purchase by " + user) })
            #expect(c["apple_accepts"] as? Bool == true)
            let reply = try await server.request("POST", "/v1/webhooks/appstore", headers: ["Content-Type": "application/json"], body: c["body"] as? String)
            #expect(reply.status == 200 && reply.json?["status"] as? String == "stored", "\(reply.text)")
        }

        // Sticky assignment: each user gets the variant of their own first exposure, and the answer echoes their own bytes.
        for (user, variant) in [(userA, "name"), (userB, "ai")] {
            let reply = try await server.request("POST", "/v1/assign", headers: key, body: #"""
                {"user_id":"\#(user)","attributes":{"platform":"ios"},"experiments":["\#(Self.experiment)"]}
                """#)
            #expect(reply.status == 200, "\(reply.text)")
            #expect(Self.bytes(reply.json?["user_id"] as? String) == Self.bytes(user))
            let assignment = try #require((reply.json?["assignments"] as? [[String: Any]])?.first)
            #expect(assignment["variant"] as? String == variant, "\(user): \(reply.text)")
        }

        // The report: two users, one in each variant, each with their own payments (userA: 1 + 2 + 4 + 9.99; userB: 4 + 9.99).
        let report = try await server.request("GET", "/v1/experiments/\(Self.experiment)/report", headers: key)
        #expect(report.status == 200, "\(report.text.prefix(300))")
        #expect(report.json?["users"] as? Int == 2, "\(report.text.prefix(300))")
        let variants = try #require(report.json?["variants"] as? [[String: Any]])
        func variant(_ key: String) -> [String: Any]? { variants.first { $0["key"] as? String == key } }
        #expect(variant("name")?["users"] as? Int == 1)
        #expect(variant("ai")?["users"] as? Int == 1)
        for key in ["name", "ai"] {
            let paid = (variant(key)?["metrics"] as? [String: Any])?["paid_conversion"] as? [String: Any]
            #expect(paid?["count"] as? Int == 1, "\(key): \(String(describing: paid))")
        }
        server.signal(SIGTERM)
        #expect(await server.exit(within: .seconds(20)) == 0)

        // What is stored: each user's revenue apart, read with the store's own client.
        let revenue = try await Self.revenueByUser(store, database)
        #expect(revenue[Self.bytes(userA)!] == 16.99, "\(revenue)")   // 1 + 2 + 4 + 9.99
        #expect(revenue[Self.bytes(userB)!] == 13.99, "\(revenue)")   // 4 + 9.99

        // The CLI report on the same store agrees.
        let cli = try await Abctl.run(["report", Self.experiment, "--db", database, "--experiments", Abctl.packageRoot + "/Experiments", "--format", "json"])
        #expect(cli.status == 0, "\(cli.stderr)")
        let cliReport = try JSONSerialization.jsonObject(with: Data(cli.stdout.utf8)) as? [String: Any]
        #expect(cliReport?["users"] as? Int == 2)
    }

    /// Each user's summed revenue, keyed by the id's bytes, read by sqlite3 or psql.
    static func revenueByUser(_ store: Store, _ database: String) async throws -> [[UInt8]: Double] {
        let sql = "SELECT user_id, sum(revenue) FROM events WHERE revenue IS NOT NULL GROUP BY user_id"
        // psql's unaligned output separates columns with "|", as sqlite3's does.
        let text = store == .sqlite
            ? try await ChildProcess.run("/usr/bin/sqlite3", [database, sql]).stdout
            : try PostgresCluster.shared().psql(sql, database: String(database.split(separator: "/").last!.split(separator: "?").first!))
        var out: [[UInt8]: Double] = [:]
        for row in text.split(separator: "\n") {
            let parts = row.split(separator: "|")
            guard parts.count == 2, let sum = Double(parts[1]) else { continue }
            out[Array(parts[0].utf8)] = (sum * 100).rounded() / 100
        }
        return out
    }
}
