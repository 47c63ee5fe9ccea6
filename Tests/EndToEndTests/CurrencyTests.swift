import Foundation
import TestSupport
import Testing

/// Currencies through `abctl ingest`: revenue in another currency is stored converted with
/// `exchange_rates` (the amount and currency as sent kept); a currency with no rate is refused
/// naming `currency`, and nothing of it is stored. `POST /v1/events` and the webhooks are checked
/// in process (ServerTests/InProcess/APICurrencyTests and the webhook suites there).
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
}
