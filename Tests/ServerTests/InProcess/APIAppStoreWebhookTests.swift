import Foundation
import Server
import Testing
import TestSupport
import Webhooks

/// `POST /v1/webhooks/appstore` in process: notifications signed by a throwaway CA chain
/// with Apple's OIDs, each judged first by Apple's own app-store-server-library; abctl accepts
/// exactly those it accepts, and stores nothing of the others (moved from
/// EndToEndTests/AppStoreWebhookTests, which keeps the flags).
@Suite(.timeLimit(.minutes(3)))
struct APIAppStoreWebhookTests {
    static let bundle = "com.example.chorus"

    struct Case: Decodable {
        var name: String
        var body: String
        var apple_accepts: Bool
        var status: String?
        var type: String?
        var user: String?
        var revenue: Double?
        /// Revenue sent in another currency: the amount and currency as sent.
        var original: [OriginalPart]?
        /// The answer when not 200 (a currency with no rate: 422), and the field it names.
        var http: Int?
        var field: String?
        /// The subscription's later life: the stored event's id, how many events the notification
        /// stores (an upgrade: the plan change and its charge), and what its row keeps.
        var event_id: String?
        var events: Int?
        var row: WebhookLifeRow?
    }

    enum OriginalPart: Decodable {
        case amount(Double), currency(String)
        init(from decoder: any Decoder) throws {
            let c = try decoder.singleValueContainer()
            if let x = try? c.decode(Double.self) { self = .amount(x) } else { self = .currency(try c.decode(String.self)) }
        }
    }

    /// The fixtures are Apple's sandbox notifications: a server left at the production default
    /// (`--appstore-environment`) acknowledges them as ignored and stores nothing.
    @Test func sandboxNotificationsStayOutOfProductionData() async throws {
        let folder = TemporaryFolder()
        try await WebhookSupport.python([WebhookSupport.fixtures + "/appstore/notifications.py", folder.path, Self.bundle])
        let cases = try JSONDecoder().decode([Case].self, from: Data(contentsOf: URL(fileURLWithPath: folder.path + "/cases.json")))
        let root = [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder.path + "/root.pem")))
        let server = try InProcessServer {
            $0.appStore = AppStoreOptions(verifier: try AppStoreJWSVerifier(roots: [root]), bundleID: Self.bundle)
        }
        let good = try #require(cases.first { $0.apple_accepts && $0.status == "stored" })
        let reply = await server.request("POST", "/v1/webhooks/appstore", headers: ["Content-Type": "application/json"], body: good.body)
        #expect(reply.status == 200 && reply.json?["status"] as? String == "ignored" && reply.json?["reason"] as? String == "environment", "\(reply.text)")
        #expect(await WebhookSupport.storedCount(server) == 0)
        let type = try #require(good.type.map { _ in reply.json?["type"] as? String } ?? nil)
        #expect(await server.request("GET", "/metrics").text.contains(#"abctl_appstore_notifications_total{outcome="ignored",type="\#(type)"} 1"#))
    }

    @Test
    func acceptsExactlyWhatApplesVerifierAccepts() async throws {
        let folder = TemporaryFolder()
        try await WebhookSupport.python([WebhookSupport.fixtures + "/appstore/notifications.py", folder.path, Self.bundle])
        let cases = try JSONDecoder().decode([Case].self, from: Data(contentsOf: URL(fileURLWithPath: folder.path + "/cases.json")))
        #expect(cases.count >= 20)
        #expect(cases.filter(\.apple_accepts).count == 21, "Apple's verifier accepts the 21 good notifications: \(cases.map { ($0.name, $0.apple_accepts) })")
        // As `--appstore-root-ca root.pem --appstore-bundle-id` and ABCTL_API_KEYS=k1:admin set it.
        let root = [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder.path + "/root.pem")))
        let server = try InProcessServer {
            $0.appStore = AppStoreOptions(verifier: try AppStoreJWSVerifier(roots: [root]), bundleID: Self.bundle, environment: "Sandbox")
            $0.keys = try APIKeys.parse(environment: "k1:admin")
        }
        var stored = await WebhookSupport.storedCount(server)
        #expect(stored == 0)
        for c in cases {
            let reply = await server.request("POST", "/v1/webhooks/appstore", headers: ["Content-Type": "application/json"], body: c.body)
            let now = await WebhookSupport.storedCount(server)
            if let status = c.http {
                #expect(c.apple_accepts, "\(c.name)")
                #expect(reply.status == status, "\(c.name): \(reply.text)")
                #expect(reply.error?["field"] as? String == c.field, "\(c.name): \(reply.text)")
                #expect(now == stored, "\(c.name) stored something")
            } else if c.apple_accepts {
                #expect(reply.status == 200, "\(c.name): \(reply.text)")
                #expect(reply.json?["status"] as? String == c.status, "\(c.name): \(reply.text)")
                if let type = c.type { #expect(reply.json?["type"] as? String == type, "\(c.name): \(reply.text)") }
                #expect(now == stored + (c.status == "stored" ? c.events ?? 1 : 0), "\(c.name)")
                if let row = c.row, let id = c.event_id { try await row.expect(in: server, eventID: id, c.name) }
            } else {
                #expect(reply.status == 401 || reply.status == 400, "\(c.name): \(reply.status) \(reply.text)")
                #expect(now == stored, "\(c.name) stored something")
            }
            stored = now
        }
        #expect(stored == 18)
        let metrics = await server.request("GET", "/metrics").text
        #expect(metrics.contains(#"abctl_appstore_notifications_total{outcome="mapped",type="converted"} 1"#))
        #expect(metrics.contains(#"abctl_appstore_notifications_total{outcome="ignored",type="TEST"} 1"#))
        #expect(metrics.contains(#"abctl_appstore_notifications_total{outcome="mapped",type="expired"} 5"#), "\(metrics)")
        #expect(metrics.contains(#"abctl_appstore_notifications_total{outcome="ignored",type="GRACE_PERIOD_EXPIRED"} 1"#), "\(metrics)")

        // What was stored: the user is appAccountToken, revenue price / 1000, negative for a refund.
        let stored6 = try await server.query("SELECT user_id, revenue FROM events ORDER BY ts, event_id").map { $0.joined(separator: "|") }
        #expect(stored6.count == 18, "\(stored6)")
        for c in cases where c.apple_accepts && c.status == "stored" && c.original == nil {
            let revenue = c.revenue.map { "\($0)" } ?? ""
            #expect(stored6.contains("\(c.user ?? "")|\(revenue)"), "\(c.name): \(stored6)")
        }
        // Converted at 1.08 USD a euro (Experiments/products.json), the amount and currency as sent kept.
        for c in cases where c.original != nil {
            guard case .amount(let amount)? = c.original?.first, case .currency(let code)? = c.original?.last else { Issue.record("\(c.name)"); continue }
            let row = try await server.query("SELECT revenue, currency, original_revenue, original_currency FROM events WHERE user_id = '\(c.user ?? "")'").first ?? []
            #expect(row.count == 4, "\(c.name): \(row)")
            guard row.count == 4 else { continue }
            #expect(abs((Double(row[0]) ?? 0) - amount * 1.08) < 1e-9, "\(c.name): \(row)")
            #expect(row[1] == "USD" && Double(row[2]) == amount && row[3] == code, "\(c.name): \(row)")
        }
    }

    @Test func offWithoutItsOptions() async throws {
        let server = try InProcessServer()
        let reply = await server.request("POST", "/v1/webhooks/appstore", body: #"{"signedPayload":"a.b.c"}"#)
        #expect(reply.status == 404)
    }
}
