import Foundation
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// SPEC §4 currency, end to end through the built binary: revenue in another currency is stored
/// converted with `exchange_rates` (the amount and currency as sent kept), by `abctl ingest`,
/// `POST /v1/events` and the RevenueCat webhook (the App Store's is in AppStoreWebhookTests); a
/// currency with no rate is refused naming `currency`, and nothing of it is stored.
@Suite(.timeLimit(.minutes(3)))
struct CurrencyTests {
    /// Rows of `SELECT …` on a store, split into fields.
    static func rows(_ db: String, _ sql: String) async throws -> [[String]] {
        let run = try await ChildProcess.run("/usr/bin/sqlite3", [db, sql])
        return run.stdout.split(separator: "\n").map { $0.split(separator: "|", omittingEmptySubsequences: false).map(String.init) }
    }

    static func line(_ id: String, _ type: String, user: String = "u1", revenue: Double? = nil, currency: String? = nil) -> String {
        var s = #"{"event_id":"\#(id)","type":"\#(type)","user_id":"\#(user)","ts":"2026-12-02T10:00:00Z""#
        if let revenue { s += #","revenue":\#(revenue)"# }
        if let currency { s += #","currency":"\#(currency)""# }
        return s + "}"
    }

    @Test func ingestConvertsAndRefusesPerLine() async throws {
        let folder = TemporaryFolder()
        let db = folder.path + "/events.sqlite"
        let input = folder.write("events.ndjson", [
            Self.line("e1", "purchased", revenue: 49.99, currency: "EUR"),
            Self.line("e2", "renewed", revenue: 8900, currency: "JPY"),
            Self.line("e3", "renewed", revenue: 59.99, currency: "SEK"),
            Self.line("e4", "renewed", revenue: 9.99),
            Self.line("e5", "refunded", revenue: -9.99, currency: "GBP"),
        ].joined(separator: "\n") + "\n")
        let run = try await Abctl.run(["ingest", input, "--db", db, "--experiments", Abctl.packageRoot + "/Experiments"])
        #expect(run.status == 1, "\(run.stdout) \(run.stderr)")
        #expect(run.stderr.contains("3: currency: no exchange rate from SEK to USD"), "\(run.stderr)")
        let stored = try await Self.rows(db, "SELECT event_id, revenue, currency, original_revenue, original_currency FROM events ORDER BY event_id")
        #expect(stored.map { $0[0] } == ["e1", "e2", "e4", "e5"])
        // By hand, at Experiments/products.json's rates: EUR 1.08, JPY 0.0067, GBP 1.27.
        let expected: [String: (Double, String?, Double?, String?)] = [
            "e1": (49.99 * 1.08, "USD", 49.99, "EUR"), "e2": (8900 * 0.0067, "USD", 8900, "JPY"),
            "e4": (9.99, nil, nil, nil), "e5": (-9.99 * 1.27, "USD", -9.99, "GBP"),
        ]
        for row in stored {
            let want = try #require(expected[row[0]])
            #expect(abs((Double(row[1]) ?? .nan) - want.0) < 1e-9, "\(row)")
            #expect((row[2].isEmpty ? nil : row[2]) == want.1, "\(row)")
            #expect(Double(row[3]) == want.2, "\(row)")
            #expect((row[4].isEmpty ? nil : row[4]) == want.3, "\(row)")
        }
        // Facts sum the converted amounts.
        let net = try await Self.rows(db, "SELECT SUM(revenue) FROM events").first.flatMap { Double($0[0]) }
        #expect(abs((net ?? 0) - (49.99 * 1.08 + 8900 * 0.0067 + 9.99 - 9.99 * 1.27)) < 1e-9)
    }

    @Test func eventsEndpointConvertsAndRefusesTheWholeBatch() async throws {
        let server = try await ServeProcess.start()
        let refused = try await server.request("POST", "/v1/events", body: [Self.line("a1", "purchased", revenue: 10, currency: "EUR"),
                                                                      Self.line("a2", "purchased", user: "u2", revenue: 10, currency: "CHF")].joined(separator: "\n"))
        #expect(refused.status == 422, "\(refused.text)")
        #expect(refused.error?["field"] as? String == "currency")
        #expect(refused.json?["stored"] as? Int == 0)
        let ok = try await server.request("POST", "/v1/events", body: Self.line("a1", "purchased", revenue: 10, currency: "EUR"))
        #expect(ok.json?["stored"] as? Int == 1, "\(ok.text)")
        server.signal(SIGTERM)
        #expect(await server.exit(within: .seconds(20)) == 0)
        let stored = try await Self.rows(server.databasePath, "SELECT event_id, revenue, original_revenue, original_currency FROM events")
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
                try text.write(toFile: path, atomically: true, encoding: .utf8)
            }
        }
        let noRate = try await ServeProcess.start(environment: ["ABCTL_REVENUECAT_AUTH": "Bearer rc-secret"], experiments: euroProducts(rates: "{}"))
        let refused = try await noRate.request("POST", "/v1/webhooks/revenuecat", headers: auth, body: renewal)
        #expect(refused.status == 422, "\(refused.text)")
        #expect(refused.error?["field"] as? String == "event.currency")
        #expect((refused.error?["message"] as? String)?.contains("no exchange rate from USD to EUR") == true, "\(refused.text)")
        #expect(try await AppStoreWebhookTests.storedCount(noRate) == 0)

        let withRate = try await ServeProcess.start(environment: ["ABCTL_REVENUECAT_AUTH": "Bearer rc-secret"], experiments: euroProducts(rates: #"{ "USD": 0.93 }"#))
        let stored = try await withRate.request("POST", "/v1/webhooks/revenuecat", headers: auth, body: renewal)
        #expect(stored.status == 200, "\(stored.text)")
        withRate.signal(SIGTERM)
        #expect(await withRate.exit(within: .seconds(20)) == 0)
        let row = try await Self.rows(withRate.databasePath, "SELECT revenue, currency, original_revenue, original_currency FROM events").first ?? []
        #expect(row.count == 4 && abs((Double(row[0]) ?? 0) - 59.99 * 0.93) < 1e-9 && row[1] == "EUR" && row[2] == "59.99" && row[3] == "USD", "\(row)")
    }
}
