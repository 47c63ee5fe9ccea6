import Foundation
import Testing
import TestSupport

/// The subscription's later life through the Stripe and Google Play webhooks in process: events
/// in each vendor's documented shapes (Stripe's signed by Stripe's own library, Google's pushes
/// with tokens of the key tokens.py made and purchases served by the fake Play API), each mapped to
/// abctl's type with the fields it keeps, and what abctl has no type for answered ignored and counted.
/// (The App Store's, judged by Apple's library, are in APIAppStoreWebhookTests.)
@Suite(.timeLimit(.minutes(3)))
struct APISubscriptionLifeWebhookTests {
    struct Case: Decodable {
        var name: String
        var body: String
        var header: String?
        var token: String?
        var status: String
        var type: String?
        var event_id: String
        var events: Int?
        var row: WebhookLifeRow?
    }

    @Test func stripesEventsOfTheSubscriptionsLife() async throws {
        let folder = TemporaryFolder()
        let now = Int(Date().timeIntervalSince1970)
        try await WebhookSupport.python([WebhookSupport.fixtures + "/stripe/events.py", folder.path + "/events.json", WebhookSupport.stripeSecrets[0], String(now), "life"])
        let cases = try JSONDecoder().decode([Case].self, from: Data(contentsOf: URL(fileURLWithPath: folder.path + "/events.json")))
        #expect(cases.count == 12)
        let server = try WebhookSupport.stripeServer()
        try await Self.deliver(cases, to: server) { await WebhookSupport.postStripe(server, body: $0.body, header: $0.header) }
        let metrics = await server.request("GET", "/metrics").text
        for type in ["billing_issue", "uncancelled", "plan_changed"] {
            #expect(metrics.contains(#"abctl_stripe_events_total{outcome="mapped",type="\#(type)"}"#), "\(type): \(metrics)")
        }
        #expect(metrics.contains(#"abctl_stripe_events_total{outcome="mapped",type="expired"} 3"#), "\(metrics)")
        #expect(metrics.contains(#"abctl_stripe_events_total{outcome="no_user",type="invoice.payment_failed"} 1"#), "\(metrics)")
    }

    @Test func googlePlaysNotificationsOfTheSubscriptionsLife() async throws {
        let folder = TemporaryFolder()
        let now = Int(Date().timeIntervalSince1970)
        try await WebhookSupport.python([WebhookSupport.unitFixtures + "/googleplay/tokens.py", folder.path])
        try await WebhookSupport.python([WebhookSupport.fixtures + "/googleplay/pushes.py", folder.path, WebhookSupport.audience, WebhookSupport.account,
                                         WebhookSupport.package, String(now), "life"])
        let cases = try JSONDecoder().decode([Case].self, from: Data(contentsOf: URL(fileURLWithPath: folder.path + "/pushes.json")))
        #expect(cases.count == 23)
        let purchases = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder.path + "/purchases.json"))) as? [String: Any])
        let fake = try FakeGooglePlay(package: WebhookSupport.package)
        for (token, purchase) in purchases {
            fake.setPurchase(token, json: String(decoding: try JSONSerialization.data(withJSONObject: purchase), as: UTF8.self))
        }
        let server = try await WebhookSupport.googlePlayServer(folder, fake)
        try await Self.deliver(cases, to: server) {
            await server.request("POST", "/v1/webhooks/googleplay", headers: ["Authorization": "Bearer " + ($0.token ?? ""), "Content-Type": "application/json"],
                                 body: $0.body)
        }
        let metrics = await server.request("GET", "/metrics").text
        #expect(metrics.contains(#"abctl_googleplay_notifications_total{outcome="mapped",type="billing_issue"} 3"#), "\(metrics)")
        #expect(metrics.contains(#"abctl_googleplay_notifications_total{outcome="mapped",type="expired"} 5"#), "\(metrics)")
        #expect(metrics.contains(#"abctl_googleplay_notifications_total{outcome="ignored",type="subscriptionNotification.3"} 2"#), "\(metrics)")
        #expect(metrics.contains(#"abctl_googleplay_notifications_total{outcome="ignored",type="subscriptionNotification.8"} 1"#), "\(metrics)")
        #expect(metrics.contains(#"abctl_googleplay_notifications_total{outcome="already_counted",type="voidedPurchaseNotification"} 1"#), "\(metrics)")
    }

    /// Posts each case in order: the answer's status and type as the fixture says, the stored
    /// count risen by the events it stores, and each row's fields.
    static func deliver(_ cases: [Case], to server: InProcessServer, post: (Case) async -> APIReply) async throws {
        var stored = await WebhookSupport.storedCount(server)
        for c in cases {
            let reply = await post(c)
            #expect(reply.status == 200, "\(c.name): \(reply.status) \(reply.text)")
            #expect(reply.json?["status"] as? String == c.status, "\(c.name): \(reply.text)")
            if let type = c.type { #expect(reply.json?["type"] as? String == type, "\(c.name): \(reply.text)") }
            let now = await WebhookSupport.storedCount(server)
            #expect(now == stored + (c.status == "stored" ? c.events ?? 1 : 0), "\(c.name): stored \(now - stored)")
            stored = now
            if let row = c.row { try await row.expect(in: server, eventID: c.event_id, c.name) }
        }
    }
}
