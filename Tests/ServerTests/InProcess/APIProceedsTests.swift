import Foundation
import Server
import Testing
import TestSupport
import Webhooks

/// Proceeds, in process: what the team receives of each payment, as RevenueCat says it
/// (`price × (1 − commission − tax)`), at the App Store commission `products.json` `stores` configures,
/// and through `/v1/events` (carried, or the store's cut, and a refund's share of its payment), each
/// stored and reported to the cent as computed by hand.
@Suite(.timeLimit(.minutes(3)))
struct APIProceedsTests {
    /// The shipped products.json with `stores` added: the App Store at 15%, Stripe at 2.5% + 0.25.
    static func withStores(_ folder: String) throws {
        try WebhookSupport.addExperiment(folder)
        let path = folder + "/products.json"
        let text = try String(contentsOfFile: path, encoding: .utf8).replacingOccurrences(of: #""currency": "USD","#, with: #"""
            "currency": "USD",
              "stores": { "app_store": { "commission": 0.15 }, "stripe": { "percent": 0.025, "fixed": 0.25 } },
            """#)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }

    /// Stored proceeds rows: user, revenue, proceeds, store, before tax (1/0), in time order.
    static func rows(_ server: InProcessServer) async throws -> [[String]] {
        try await server.query("SELECT user_id, revenue, proceeds, store, proceeds_before_tax FROM events WHERE revenue IS NOT NULL ORDER BY user_id, ts, event_id")
    }

    static func near(_ text: String, _ value: Double) -> Bool { abs((Double(text) ?? .nan) - value) < 1e-9 }

    @Test func revenueCatSaysItsCutAndTax() async throws {
        let now = Int(Date().timeIntervalSince1970)
        let server = try InProcessServer(options: { $0.revenueCatAuthorization = "Bearer rc-secret" }, experiments: Self.withStores)
        await WebhookSupport.expose(server, [("r1", "trial-3d"), ("r2", "trial-7d")], now: now)
        let ms = (now - 86_400) * 1000
        func post(_ event: String) async -> APIReply {
            await server.request("POST", "/v1/webhooks/revenuecat", headers: ["Authorization": "Bearer rc-secret"], body: #"{"api_version":"1.0","event":\#(event)}"#)
        }
        // r1: the issue's renewal, 77.76 with takehome 0.85 and 10% tax; r2: 9.99 with commission 0.30 and no tax
        // (proceeds before tax), then refunded (RevenueCat sends the negative price with the same shares).
        let sent = [
            #"{"type":"RENEWAL","id":"rc-1","app_user_id":"r1","price":77.76,"takehome_percentage":0.85,"tax_percentage":0.1,"store":"APP_STORE","product_id":"chorus.plus.annual","purchased_at_ms":\#(ms)}"#,
            #"{"type":"INITIAL_PURCHASE","id":"rc-2","app_user_id":"r2","price":9.99,"commission_percentage":0.3,"store":"PLAY_STORE","product_id":"chorus.plus.monthly","purchased_at_ms":\#(ms)}"#,
            #"{"type":"CANCELLATION","id":"rc-3","app_user_id":"r2","price":-9.99,"commission_percentage":0.3,"store":"PLAY_STORE","product_id":"chorus.plus.monthly","event_timestamp_ms":\#(ms + 3_600_000)}"#,
        ]
        for event in sent {
            let reply = await post(event)
            #expect(reply.status == 200 && reply.json?["status"] as? String == "stored", "\(reply.text)")
        }
        // A share outside 0...1 is the sender's error, named, and nothing is stored.
        let bad = await post(#"{"type":"RENEWAL","id":"rc-4","app_user_id":"r1","price":5,"tax_percentage":1.5,"purchased_at_ms":\#(ms)}"#)
        #expect(bad.status == 422 && bad.error?["field"] as? String == "event.tax_percentage", "\(bad.text)")

        let rows = try await Self.rows(server)
        #expect(rows.count == 3, "\(rows)")
        guard rows.count == 3 else { return }
        #expect(rows[0][0] == "r1" && Self.near(rows[0][2], 77.76 * (0.85 - 0.1)) && rows[0][3] == "app_store" && rows[0][4] == "0", "\(rows[0])")
        #expect(rows[1][0] == "r2" && Self.near(rows[1][2], 9.99 * 0.7) && rows[1][3] == "google_play" && rows[1][4] == "1", "\(rows[1])")
        #expect(rows[2][0] == "r2" && Self.near(rows[2][2], -9.99 * 0.7) && rows[2][4] == "1", "\(rows[2])")
        let report = try await WebhookReport.fetch(server)
        report.expect("trial-3d", counts: ["paid_conversion": 0], revenue: 77.76)   // a renewal: no first payment
        report.expect("trial-3d", proceeds: 58.32)
        report.expect("trial-7d", proceeds: 0)
        #expect(report.json["proceeds_before_tax"] as? Bool == true)
        let legend = (report.json["legend"] as? [String])?.joined(separator: " ") ?? ""
        #expect(legend.contains("Proceeds before tax") && legend.contains("gross revenue is what users paid"), "\(legend)")
    }

    @Test func appStoreAtTheConfiguredCommission() async throws {
        let folder = TemporaryFolder()
        try await WebhookSupport.python([WebhookSupport.fixtures + "/appstore/notifications.py", folder.path, APIAppStoreWebhookTests.bundle])
        let cases = try JSONDecoder().decode([APIAppStoreWebhookTests.Case].self, from: Data(contentsOf: URL(fileURLWithPath: folder.path + "/cases.json")))
        let root = [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder.path + "/root.pem")))
        let server = try InProcessServer(options: {
            $0.appStore = AppStoreOptions(verifier: try AppStoreJWSVerifier(roots: [root]), bundleID: APIAppStoreWebhookTests.bundle, environment: "Sandbox")
        }, experiments: Self.withStores)
        for c in cases where c.apple_accepts { _ = await server.request("POST", "/v1/webhooks/appstore", headers: ["Content-Type": "application/json"], body: c.body) }
        let rows = try await Self.rows(server)
        #expect(rows.count >= 3, "\(rows)")
        // Every payment and refund: the revenue less 15%, through the App Store, tax not known.
        for row in rows {
            #expect(Self.near(row[2], (Double(row[1]) ?? .nan) * 0.85) && row[3] == "app_store" && row[4] == "1", "\(row)")
        }
        // By hand, to the cent: the sum of the stored gross less 15%.
        let gross = rows.reduce(0.0) { $0 + (Double($1[1]) ?? 0) }
        let proceeds = rows.reduce(0.0) { $0 + (Double($1[2]) ?? 0) }
        #expect(((proceeds - gross * 0.85) * 100).rounded() == 0, "\(proceeds) against \(gross * 0.85)")
    }

    @Test func eventsCarryProceedsOrTakeTheStoresCut() async throws {
        let now = Int(Date().timeIntervalSince1970)
        let server = try InProcessServer(experiments: Self.withStores)
        await WebhookSupport.expose(server, [("e1", "trial-3d"), ("e2", "trial-3d"), ("e3", "trial-7d"), ("e4", "trial-7d")], now: now)
        let ts = WebhookSupport.rfc3339(now - 86_400), later = WebhookSupport.rfc3339(now - 3_600)
        let lines = [
            // e1: proceeds as the store said them (tax known), then half refunded: the refund takes the payment's share.
            #"{"event_id":"p1","type":"purchased","user_id":"e1","ts":"\#(ts)","revenue":59.99,"proceeds":42.5,"store":"app_store"}"#,
            #"{"event_id":"p2","type":"refunded","user_id":"e1","ts":"\#(later)","revenue":-30,"store":"app_store"}"#,
            // e2: the App Store's configured 15%, in euros (converted at 1.08 first).
            #"{"event_id":"p3","type":"purchased","user_id":"e2","ts":"\#(ts)","revenue":10.99,"currency":"EUR","store":"app_store"}"#,
            // e3: Stripe at 2.5% + 0.25; e4: no store, no cut.
            #"{"event_id":"p4","type":"purchased","user_id":"e3","ts":"\#(ts)","revenue":9.99,"store":"stripe"}"#,
            #"{"event_id":"p5","type":"purchased","user_id":"e4","ts":"\#(ts)","revenue":9.99}"#,
        ]
        let reply = await server.request("POST", "/v1/events", headers: ["Content-Type": "application/x-ndjson"], body: lines.joined(separator: "\n"))
        #expect(reply.status == 200 && reply.json?["stored"] as? Int == 5, "\(reply.text)")
        // Doubtful proceeds are refused naming the field: larger than revenue, another sign, without revenue, an unknown store.
        for (line, field) in [(#"{"event_id":"b1","type":"purchased","user_id":"e1","ts":"\#(ts)","revenue":5,"proceeds":6}"#, "proceeds"),
                              (#"{"event_id":"b2","type":"refunded","user_id":"e1","ts":"\#(ts)","revenue":-5,"proceeds":4}"#, "proceeds"),
                              (#"{"event_id":"b3","type":"renewed","user_id":"e1","ts":"\#(ts)","proceeds":4}"#, "proceeds"),
                              (#"{"event_id":"b4","type":"renewed","user_id":"e1","ts":"\#(ts)","revenue":5,"store":"amazon"}"#, "store"),
                              (#"{"event_id":"b5","type":"exposure","user_id":"e1","ts":"\#(ts)","experiment":"webhook-revenue","variant":"trial-3d","store":"app_store"}"#, "store")] {
            let refused = await server.request("POST", "/v1/events", headers: ["Content-Type": "application/x-ndjson"], body: line)
            let first = (refused.json?["rejections"] as? [[String: Any]])?.first
            #expect(refused.status == 422 && first?["field"] as? String == field, "\(line): \(refused.text)")
        }
        let report = try await WebhookReport.fetch(server)
        report.expect("trial-3d", counts: ["paid_conversion": 2], revenue: 59.99 - 30 + 10.99 * 1.08)
        // By hand: 42.50 − 42.50 × 30 / 59.99, plus 10.99 × 1.08 × 0.85.
        report.expect("trial-3d", proceeds: 42.5 - 42.5 * 30 / 59.99 + 10.99 * 1.08 * 0.85)
        report.expect("trial-7d", proceeds: 9.99 * (1 - 0.025) - 0.25 + 9.99)
        #expect(report.json["proceeds_before_tax"] as? Bool == true)
    }
}
