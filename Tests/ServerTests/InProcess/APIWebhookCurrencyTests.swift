import Foundation
import Testing
import TestSupport

/// Event currencies through the Stripe and Google Play webhooks, in process: revenue in EUR and JPY
/// is stored converted by `exchange_rates` of products.json (EUR 1.08, JPY 0.0067 in the shipped
/// one) with the amount and currency as sent kept, and reported per arm as computed by hand; a
/// currency with no rate (SEK) answers 422 and stores nothing (moved from EndToEndTests/WebhookCurrencyTests).
@Suite(.timeLimit(.minutes(3)))
struct APIWebhookCurrencyTests {
    static let eur = 1.08, jpy = 0.0067

    /// One case's answer: a refused one is 422 blaming the currency and stores nothing; the others as the script says.
    static func check(_ reply: APIReply, name: String, status: String, type: String?, storedBefore: Int, storedAfter: Int) {
        if status == "422" {
            #expect(reply.status == 422, "\(name): \(reply.status) \(reply.text)")
            #expect((reply.error?["field"] as? String)?.hasSuffix("currency") == true, "\(name): \(reply.text)")
            #expect((reply.error?["message"] as? String)?.contains("no exchange rate from SEK to USD") == true, "\(name): \(reply.text)")
            #expect(storedAfter == storedBefore, "\(name) stored something")
        } else {
            #expect(reply.status == 200 && reply.json?["status"] as? String == status, "\(name): \(reply.status) \(reply.text)")
            if let type { #expect(reply.json?["type"] as? String == type, "\(name): \(reply.text)") }
        }
    }

    /// The revenue rows of the store: user, revenue, currency, original revenue, original currency.
    static func revenueRows(_ server: InProcessServer) async throws -> [[String]] {
        try await server.query("""
            SELECT user_id, revenue, currency, original_revenue, original_currency FROM events WHERE revenue IS NOT NULL ORDER BY user_id, ts
            """)
    }

    /// Expects `rows` to be exactly `expected` (user, converted revenue, original amount, original currency), in order.
    static func expectRows(_ rows: [[String]], _ expected: [(String, Double, Double, String)]) {
        #expect(rows.count == expected.count, "\(rows)")
        for (row, want) in zip(rows, expected) {
            #expect(row.count == 5 && row[0] == want.0, "\(row)")
            #expect(abs((Double(row[1]) ?? .nan) - want.1) < 1e-9, "\(row): by hand \(want.1)")
            #expect(row[2] == "USD" && Double(row[3]) == want.2 && row[4] == want.3, "\(row)")
        }
    }

    @Test func stripe() async throws {
        let folder = TemporaryFolder()
        let now = Int(Date().timeIntervalSince1970)
        try await WebhookSupport.python([WebhookSupport.fixtures + "/stripe/events.py", folder.path + "/events.json",
                                         WebhookSupport.stripeSecrets[0], String(now), "currency"])
        let cases = try JSONDecoder().decode([WebhookSupport.StripeEventCase].self, from: Data(contentsOf: URL(fileURLWithPath: folder.path + "/events.json")))
        #expect(cases.count == 4)
        let server = try WebhookSupport.stripeServer(secrets: [WebhookSupport.stripeSecrets[0]], experiments: WebhookSupport.addExperiment)
        await WebhookSupport.expose(server, [("c1", "trial-7d"), ("c2", "trial-3d"), ("c3", "trial-3d")], now: now)
        for c in cases {
            let before = await WebhookSupport.storedCount(server)
            let reply = await WebhookSupport.postStripe(server, body: c.body, header: c.header)
            Self.check(reply, name: c.name, status: c.status, type: c.type, storedBefore: before, storedAfter: await WebhookSupport.storedCount(server))
        }
        let report = try await WebhookReport.fetch(server)
        #expect(report.json["currency"] as? String == "USD")
        // By hand: c1 paid 49.99 EUR and got 10.00 EUR back; c2 paid 8900 JPY (zero-decimal); c3's SEK was refused.
        report.expect("trial-7d", counts: ["paid_conversion": 1, "refund_rate": 1], revenue: 49.99 * Self.eur - 10.00 * Self.eur)
        report.expect("trial-3d", counts: ["paid_conversion": 1, "refund_rate": 0], revenue: 8900 * Self.jpy)
        // Proceeds by hand at Stripe's default fee, 2.9% + 0.30 USD; a refund keeps the fee: the whole amount back.
        report.expect("trial-7d", proceeds: 49.99 * Self.eur * (1 - 0.029) - 0.30 - 10.00 * Self.eur)
        report.expect("trial-3d", proceeds: 8900 * Self.jpy * (1 - 0.029) - 0.30)
        #expect(report.json["proceeds_before_tax"] as? Bool == true)
        #expect(try await server.query("SELECT DISTINCT store FROM events WHERE revenue IS NOT NULL") == [["stripe"]])
        Self.expectRows(try await Self.revenueRows(server), [("c1", 49.99 * Self.eur, 49.99, "EUR"), ("c1", -10.00 * Self.eur, -10.00, "EUR"),
                                                             ("c2", 8900 * Self.jpy, 8900, "JPY")])
    }

    @Test func googlePlay() async throws {
        let folder = TemporaryFolder()
        let now = Int(Date().timeIntervalSince1970)
        try await WebhookSupport.python([WebhookSupport.unitFixtures + "/googleplay/tokens.py", folder.path])
        try await WebhookSupport.python([WebhookSupport.fixtures + "/googleplay/pushes.py", folder.path, WebhookSupport.audience,
                                         WebhookSupport.account, WebhookSupport.package, String(now), "currency"])
        let pushes = try JSONDecoder().decode([WebhookSupport.Push].self, from: Data(contentsOf: URL(fileURLWithPath: folder.path + "/pushes.json")))
        #expect(pushes.count == 4)
        let purchases = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder.path + "/purchases.json"))) as? [String: Any])
        let fake = try FakeGooglePlay(package: WebhookSupport.package)
        for (token, purchase) in purchases {
            fake.setPurchase(token, json: String(decoding: try JSONSerialization.data(withJSONObject: purchase), as: UTF8.self))
        }
        let server = try await WebhookSupport.googlePlayServer(folder, fake, experiments: WebhookSupport.addExperiment)
        await WebhookSupport.expose(server, [("q1", "trial-7d"), ("q2", "trial-3d"), ("q3", "trial-3d")], now: now)
        for push in pushes {
            let before = await WebhookSupport.storedCount(server)
            let reply = await server.request("POST", "/v1/webhooks/googleplay", headers: ["Authorization": "Bearer " + push.token, "Content-Type": "application/json"],
                                             body: push.body)
            Self.check(reply, name: push.name, status: push.status, type: push.type, storedBefore: before, storedAfter: await WebhookSupport.storedCount(server))
        }
        let report = try await WebhookReport.fetch(server)
        #expect(report.json["currency"] as? String == "USD")
        // By hand: q1 paid 49.99 EUR; q2 paid 8900 JPY and was refunded all of it; q3's SEK was refused.
        report.expect("trial-7d", counts: ["paid_conversion": 1, "refund_rate": 0], revenue: 49.99 * Self.eur)
        report.expect("trial-3d", counts: ["paid_conversion": 1, "refund_rate": 1], revenue: 0)
        // Proceeds by hand at Google Play's default 30%; the refund pays back the same share.
        report.expect("trial-7d", proceeds: 49.99 * Self.eur * 0.70)
        report.expect("trial-3d", proceeds: 0)
        #expect(try await server.query("SELECT DISTINCT store FROM events WHERE revenue IS NOT NULL") == [["google_play"]])
        Self.expectRows(try await Self.revenueRows(server), [("q1", 49.99 * Self.eur, 49.99, "EUR"), ("q2", 8900 * Self.jpy, 8900, "JPY"),
                                                             ("q2", -8900 * Self.jpy, -8900, "JPY")])
    }
}
