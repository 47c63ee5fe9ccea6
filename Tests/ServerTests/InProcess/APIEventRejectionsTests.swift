import ExperimentDefinitions
import Foundation
import PostgresStore
import Server
import Testing
import TestSupport

/// A refused batch of `POST /v1/events` names every bad field of every line, stores nothing, and
/// does so on every store (moved from EndToEndTests: EventRejectionsTests, NulInEventsTests and
/// LongIDsTests keep the `abctl ingest` and `abctl assign` halves).
@Suite(.timeLimit(.minutes(2)))
struct APIEventRejectionsTests {
    /// Line 1 good; line 2 three problems (event_id, type, ts); line 3 three (trial_days, event_id,
    /// ts); lines 4 to 30 one each (user_id): 33 problems on 29 of 30 lines.
    static let good = #"{"event_id":"g1","type":"renewed","user_id":"u","ts":"2026-12-01T10:00:00Z"}"#
    static let lines = [
        good,
        #"{"event_id":"","type":"buy","user_id":"u"}"#,
        #"{"type":"trial_started","user_id":"u","ts":"yesterday","trial_days":-1}"#,
    ] + (4...30).map { #"{"event_id":"m\#($0)","type":"renewed","ts":"2026-12-01T10:00:00Z"}"# }

    @Test func aRejectedBatchNamesEveryBadFieldOfEveryLine() async throws {
        let server = try InProcessServer()
        let reply = await server.request("POST", "/v1/events", body: Self.lines.joined(separator: "\n"))
        #expect(reply.status == 422)
        #expect(reply.errorCode == "invalid_event")
        #expect(reply.error?["field"] as? String == "event_id")
        #expect(reply.json?["rejected"] as? Int == 29)
        let message = try #require(reply.error?["message"] as? String)
        #expect(message.hasPrefix("nothing was stored: 33 problems in 29 of 30 events: line 2: event_id: must be a non-empty string; "
                                  + "line 2: type: unknown event type 'buy' (expected one of: exposure, "), "\(message)")
        #expect(message.contains("\(EventType.allCases.map(\.name).joined(separator: ", "))); line 2: ts: missing; line 3: trial_days: must be a whole number of days from 0 to 3660; "
                                 + "line 3: event_id: missing; line 3: ts: not an RFC 3339 timestamp: 'yesterday'; line 4: user_id: missing"), "\(message)")
        #expect(message.hasSuffix("line 17: user_id: missing; and 13 more problems"), "\(message)")
        #expect(message.components(separatedBy: "; line ").count == 20)
        let rejections = try #require(reply.json?["rejections"] as? [[String: Any]])
        #expect(rejections.count == 33)
        #expect(rejections.prefix(7).map { "\($0["line"] as? Int ?? 0) \($0["field"] as? String ?? "")" }
                == ["2 event_id", "2 type", "2 ts", "3 trial_days", "3 event_id", "3 ts", "4 user_id"])
        // Nothing of it was stored: the good line alone is new.
        #expect(await server.request("POST", "/v1/events", body: Self.good).json?["stored"] as? Int == 1)
    }

    // MARK: NUL (from NulInEventsTests)

    /// A `\u0000` in an event's string is refused per line, naming the field, on every store alike
    /// (PostgreSQL text cannot hold NUL; before, one such line failed the whole batch there).
    enum Store: String, CaseIterable, Sendable { case sqlite, postgres }

    static let nulGood = #"{"event_id":"g1","type":"trial_started","user_id":"u1","ts":"2026-12-01T10:01:00Z"}"#
    static let nulUser = #"{"event_id":"n1","type":"trial_started","user_id":"u\u0000","ts":"2026-12-01T10:01:00Z"}"#
    static let nulVariant = #"{"event_id":"n2","type":"exposure","user_id":"u2","experiment":"chorus-paywall-copy","variant":"ai\u0000","ts":"2026-12-01T10:00:00Z"}"#
    static let nulProduct = #"{"event_id":"n3","type":"purchased","user_id":"u3","revenue":4.99,"product_id":"\u0000","ts":"2026-12-01T10:00:00Z"}"#

    @Test(arguments: Store.allCases)
    func aNulAnswers422NamingTheField(_ store: Store) async throws {
        let server: InProcessServer
        switch store {
        case .sqlite: server = try InProcessServer()
        case .postgres:
            let url = try await onOwnThread { try PostgresCluster.shared().createDatabase() }
            server = try InProcessServer(store: try PostgresEventStore(url: url))
        }
        let reply = await server.request("POST", "/v1/events", body: [Self.nulGood, Self.nulUser, Self.nulVariant, Self.nulProduct].joined(separator: "\n"))
        #expect(reply.status == 422, "\(reply.text)")
        #expect(reply.errorCode == "invalid_event")
        #expect(reply.error?["field"] as? String == "user_id")
        let rejections = try #require(reply.json?["rejections"] as? [[String: Any]])
        #expect(rejections.map { $0["line"] as? Int } == [2, 3, 4])
        #expect(rejections.map { $0["field"] as? String } == ["user_id", "variant", "product_id"])
        #expect(rejections.allSatisfy { ($0["message"] as? String)?.contains("NUL") == true }, "\(rejections)")
        // The store is fine: the good line alone is stored.
        let alone = await server.request("POST", "/v1/events", body: Self.nulGood)
        #expect(alone.status == 200, "\(alone.text)")
        #expect(alone.json?["stored"] as? Int == 1)
    }

    // MARK: Long ids (from LongIDsTests)

    /// A `user_id` or `event_id` is at most 256 bytes; a 1 MiB one is refused naming the
    /// field by /v1/events, a webhook (the path every webhook's event takes) and assign.
    @Test func idsOver256BytesAreRefusedOnEveryRoute() async throws {
        let huge = String(repeating: "u", count: 1 << 20)
        let events = [
            #"{"event_id":"e1","type":"renewed","user_id":"\#(huge)","ts":"2026-12-01T10:00:00Z"}"#,
            #"{"event_id":"\#(huge)","type":"renewed","user_id":"u","ts":"2026-12-01T10:00:00Z"}"#,
        ]
        let server = try InProcessServer { $0.revenueCatAuthorization = "Bearer rc" }
        for (n, line) in events.enumerated() {
            let reply = await server.request("POST", "/v1/events", body: line)
            #expect(reply.status == 422)
            #expect(reply.error?["field"] as? String == ["user_id", "event_id"][n])
            #expect(!reply.text.contains(huge.prefix(300)), "the id is not echoed")
        }
        let webhook = await server.request("POST", "/v1/webhooks/revenuecat", headers: ["Authorization": "Bearer rc"], body:
            #"{"event":{"type":"NON_RENEWING_PURCHASE","id":"rc-1","app_user_id":"\#(huge)","price":4,"purchased_at_ms":1764583200000}}"#)
        #expect(webhook.status == 422, "\(webhook.text.prefix(300))")
        #expect(webhook.error?["field"] as? String == "event.app_user_id")
        let assign = await server.request("POST", "/v1/assign", body: #"{"user_id":"\#(huge)","attributes":{}}"#)
        #expect(assign.status == 400)
        #expect(assign.error?["field"] as? String == "user_id")
        #expect(!assign.text.contains(huge.prefix(300)), "the id is not echoed")
        // Nothing of them was stored.
        let metrics = await server.request("GET", "/metrics").text
        #expect(!metrics.contains(#"abctl_events_total{outcome="stored"} 1"#))
    }

    // MARK: The subscription's life

    /// An expiry without a reason or with one not in the list, and a plan change without its new
    /// product, are refused naming the field; nothing of the batch is stored; the good ones are.
    @Test func anExpiryAndAPlanChangeNeedTheirKeys() async throws {
        let server = try InProcessServer()
        let lines = [
            #"{"event_id":"x1","type":"expired","user_id":"u","ts":"2026-12-01T10:00:00Z"}"#,
            #"{"event_id":"x2","type":"expired","user_id":"u","ts":"2026-12-01T10:00:00Z","reason":"moved_away"}"#,
            #"{"event_id":"x3","type":"plan_changed","user_id":"u","ts":"2026-12-01T10:00:00Z","previous_product_id":"m"}"#,
        ]
        let reply = await server.request("POST", "/v1/events", body: lines.joined(separator: "\n"))
        #expect(reply.status == 422 && reply.errorCode == "invalid_event", "\(reply.text)")
        #expect(reply.error?["field"] as? String == "reason", "\(reply.text)")
        let rejections = try #require(reply.json?["rejections"] as? [[String: Any]])
        #expect(rejections.map { "\($0["line"] as? Int ?? 0) \($0["field"] as? String ?? "")" } == ["1 reason", "2 reason", "3 product_id"], "\(reply.text)")
        let good = [
            #"{"event_id":"y1","type":"expired","user_id":"u","ts":"2026-12-01T10:00:00Z","reason":"billing"}"#,
            #"{"event_id":"y2","type":"plan_changed","user_id":"u","ts":"2026-12-01T10:00:00Z","product_id":"a","effective":"now"}"#,
            #"{"event_id":"y3","type":"billing_issue","user_id":"u","ts":"2026-12-01T10:00:00Z","grace_until":"2026-12-17T10:00:00Z"}"#,
            #"{"event_id":"y4","type":"uncancelled","user_id":"u","ts":"2026-12-01T10:00:00Z"}"#,
        ]
        let stored = await server.request("POST", "/v1/events", body: good.joined(separator: "\n"))
        #expect(stored.status == 200 && stored.json?["stored"] as? Int == 4, "\(stored.text)")
        let rows = try await server.query("SELECT event_id, type, reason, grace_until_ts IS NOT NULL, effective FROM events ORDER BY event_id")
        #expect(rows.map { $0.joined(separator: "|") } == ["y1|\(EventType.expired.rawValue)|billing|0|", "y2|\(EventType.planChanged.rawValue)||0|now",
                                                           "y3|\(EventType.billingIssue.rawValue)||1|", "y4|\(EventType.uncancelled.rawValue)||0|"], "\(rows)")
    }
}
