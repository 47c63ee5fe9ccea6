import Foundation
import Testing

/// Event currencies through the API in process: revenue in another currency is stored converted
/// with `exchange_rates` (the amount and currency as sent kept) by `POST /v1/events` and the
/// RevenueCat webhook; a currency with no rate is refused naming `currency`, and nothing of it is
/// stored (moved from EndToEndTests/CurrencyTests, which keeps `abctl ingest`).
@Suite(.timeLimit(.minutes(2)))
struct APICurrencyTests {
    static func line(_ id: String, _ type: String, user: String = "u1", revenue: Double? = nil, currency: String? = nil) -> String {
        var s = #"{"event_id":"\#(id)","type":"\#(type)","user_id":"\#(user)","ts":"2026-12-02T10:00:00Z""#
        if let revenue { s += #","revenue":\#(revenue)"# }
        if let currency { s += #","currency":"\#(currency)""# }
        return s + "}"
    }

    @Test func eventsEndpointConvertsAndRefusesTheWholeBatch() async throws {
        let server = try InProcessServer()
        let refused = await server.request("POST", "/v1/events", body: [Self.line("a1", "purchased", revenue: 10, currency: "EUR"),
                                                                      Self.line("a2", "purchased", user: "u2", revenue: 10, currency: "CHF")].joined(separator: "\n"))
        #expect(refused.status == 422, "\(refused.text)")
        #expect(refused.error?["field"] as? String == "currency")
        #expect(refused.json?["stored"] as? Int == 0)
        let ok = await server.request("POST", "/v1/events", body: Self.line("a1", "purchased", revenue: 10, currency: "EUR"))
        #expect(ok.json?["stored"] as? Int == 1, "\(ok.text)")
        let stored = try await server.query("SELECT event_id, revenue, original_revenue, original_currency FROM events")
        #expect(stored.count == 1)
        #expect(stored.first?[0] == "a1" && abs((Double(stored.first?[1] ?? "") ?? 0) - 10.8) < 1e-9 && stored.first?[2] == "10.0" && stored.first?[3] == "EUR", "\(stored)")
    }

    /// RevenueCat's `price` is in USD: with a euro report currency it needs a USD rate.
    @Test func revenueCatPricesConvertFromDollars() async throws {
        let renewal = #"{"event":{"type":"RENEWAL","id":"rc-1","app_user_id":"u9","product_id":"chorus.plus.annual","price":59.99,"purchased_at_ms":1764583200000}}"#
        let auth = ["Authorization": "Bearer rc-secret"]
        func euroProducts(rates: String) -> (String) throws -> Void {
            { folder in
                let path = folder + "/products.json"
                let text = try String(contentsOfFile: path, encoding: .utf8)
                    .replacingOccurrences(of: #""currency": "USD""#, with: #""currency": "EUR""#)
                    .replacingOccurrences(of: #"{ "EUR": 1.08, "GBP": 1.27, "JPY": 0.0067 }"#, with: rates)
                    // The shipped storefronts and their prices are the default storefront's business here.
                    .replacingOccurrences(of: #"\s*"storefronts": \{[^}]*\},"#, with: "", options: .regularExpression)
                    .replacingOccurrences(of: #", "prices": \{[^}]*\}"#, with: "", options: .regularExpression)
                try text.write(toFile: path, atomically: true, encoding: .utf8)
            }
        }
        let noRate = try InProcessServer(options: { $0.revenueCatAuthorization = "Bearer rc-secret" }, experiments: euroProducts(rates: "{}"))
        let refused = await noRate.request("POST", "/v1/webhooks/revenuecat", headers: auth, body: renewal)
        #expect(refused.status == 422, "\(refused.text)")
        #expect(refused.error?["field"] as? String == "event.currency")
        #expect((refused.error?["message"] as? String)?.contains("no exchange rate from USD to EUR") == true, "\(refused.text)")
        #expect(await WebhookSupport.storedCount(noRate) == 0)

        let withRate = try InProcessServer(options: { $0.revenueCatAuthorization = "Bearer rc-secret" }, experiments: euroProducts(rates: #"{ "USD": 0.93 }"#))
        let stored = await withRate.request("POST", "/v1/webhooks/revenuecat", headers: auth, body: renewal)
        #expect(stored.status == 200, "\(stored.text)")
        let row = try await withRate.query("SELECT revenue, currency, original_revenue, original_currency FROM events").first ?? []
        #expect(row.count == 4 && abs((Double(row[0]) ?? 0) - 59.99 * 0.93) < 1e-9 && row[1] == "EUR" && row[2] == "59.99" && row[3] == "USD", "\(row)")
    }
}
