import Foundation
import TestSupport
import Testing

/// A simulated mixed-storefront experiment (docs/Reports.md, "Storefronts"): `abctl simulate` draws
/// storefronts from `population.country` (most users outside the report currency's), each payment
/// comes at the storefront's list price in its currency, and `abctl report` gives revenue in the
/// report currency equal to the hand conversion of what was paid, and a forecast per arm whose 90%
/// interval holds the truth: renewals at each payer's own price, with plans told by
/// `product_id` (a JPY or KRW payment matches no price of the table).
@Suite(.timeLimit(.minutes(4)))
struct StorefrontForecastTests {
    static let experiment = """
    { "id": "priced", "name": "Storefront prices", "status": "running", "start": "2026-01-01T00:00:00Z",
      "metrics": { "primary": "paid_conversion", "guardrails": [] },
      "variants": [
        { "key": "percent", "paywall": { "offering": "chorus_plus", "trial_days": 3, "discount_framing": "percent_off", "copy": { "strategy": "static", "text": "Hear every bird." } } },
        { "key": "months", "paywall": { "offering": "chorus_plus", "trial_days": 7, "discount_framing": "months_free", "copy": { "strategy": "static", "text": "Hear every bird." } } } ] }
    """
    /// Every rate written out, so the truth below reads them from this file alone.
    static let truth = """
    { "default": { "trial_start": 0.5, "day0_cancel": 0.25, "later_cancel": 0.15, "convert": 0.9, "direct_purchase": 0.01,
                   "annual_share": 0.3, "refund": 0.03, "renewal_churn": { "alpha": 1.5, "beta": 6 } },
      "experiments": { "priced": { "months": { "renewal_churn": { "alpha": 1, "beta": 3 } } } },
      "population": { "country": { "US": 0.1, "CA": 0.05, "DE": 0.15, "FR": 0.1, "GB": 0.2, "JP": 0.2, "KR": 0.2 } } }
    """
    /// Country → share and storefront currency (StorefrontFixture's storefronts; US has none: USD).
    static let countries: [String: (share: Double, currency: String)] = [
        "US": (0.1, "USD"), "CA": (0.05, "USD"), "DE": (0.15, "EUR"), "FR": (0.1, "EUR"), "GB": (0.2, "GBP"), "JP": (0.2, "JPY"), "KR": (0.2, "KRW"),
    ]
    /// StorefrontFixture's exchange_rates, written out again by hand.
    static let rates: [String: Double] = ["USD": 1, "EUR": 1.08, "GBP": 1.27, "JPY": 0.0067, "KRW": 0.00075]
    static let until = "2026-06-01T00:00:00Z"

    @Test func revenueIsTheHandConversionAndTheForecastHoldsTheTruth() async throws {
        let folder = TemporaryFolder()
        let experiments = folder.path + "/exp"
        try FileManager.default.createDirectory(atPath: experiments, withIntermediateDirectories: true)
        folder.write("exp/products.json", StorefrontFixture.productsJSON)
        folder.write("exp/priced.json", Self.experiment)
        let truth = folder.write("truth.json", Self.truth)
        let db = folder.path + "/priced.sqlite"
        // 20,000 users arrive over 60 days; the report is read 150 days after the start, when most of
        // each payer's first year is still to come.
        let sim = try await Abctl.run(["simulate", "--users", "20000", "--days", "60", "--until", Self.until, "--seed", "38",
                                       "--truth", truth, "--experiments", experiments, "--db", db], environment: ["ABCTL_NOW": Self.until])
        try #require(sim.status == 0, "\(sim.stderr)")
        let run = try await Abctl.run(["report", "priced", "--experiments", experiments, "--db", db, "--format", "json"],
                                      environment: ["ABCTL_NOW": Self.until])
        try #require(run.status == 0, "\(run.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        #expect(report["currency"] as? String == "USD")

        // What each arm's users paid, per currency, as stored (the amount paid kept beside the conversion).
        let paid = try await SimulatePlacementTests.sqlite(db, """
            WITH arm AS (SELECT user_id, variant FROM events WHERE type = 1 AND experiment = 'priced')
            SELECT arm.variant, COALESCE(e.original_currency, e.currency), printf('%.17g', SUM(COALESCE(e.original_revenue, e.revenue))), COUNT(*)
            FROM events e JOIN arm USING (user_id) WHERE e.revenue IS NOT NULL GROUP BY 1, 2
            """)
        var hand: [String: Double] = [:]
        var payments: [String: Int] = [:]
        for row in paid {
            let currency = row[1], amount = try #require(Double(row[2]))
            hand[row[0], default: 0] += amount * (try #require(Self.rates[currency], "\(row)"))
            payments[currency, default: 0] += try #require(Int(row[3]))
        }
        #expect(Set(payments.keys) == Set(Self.rates.keys) && payments.values.allSatisfy { $0 > 500 }, "\(payments)")
        // Every amount paid is a list price of its storefront currency (a refund, its negative).
        let amounts = try await SimulatePlacementTests.sqlite(db, """
            SELECT DISTINCT COALESCE(original_currency, currency), abs(COALESCE(original_revenue, revenue)) FROM events WHERE revenue IS NOT NULL
            """)
        for row in amounts {
            #expect(StorefrontFixture.prices[row[0]]?.contains(try #require(Double(row[1]))) == true, "\(row)")
        }

        let variants = try #require(report["variants"] as? [[String: Any]])
        let forecast = try #require(report["forecast"] as? [String: [String: Any]])
        let file = try #require(try JSONSerialization.jsonObject(with: Data(Self.truth.utf8)) as? [String: Any])
        let defaults = try #require(file["default"] as? [String: Any])
        let own = try #require((file["experiments"] as? [String: [String: [String: Any]]])?["priced"])
        // The truth is linear in the two prices: the share-weighted storefront prices, converted by hand.
        func meanPrice(_ plan: Int) -> Double {
            Self.countries.values.reduce(0) { $0 + $1.share * StorefrontFixture.prices[$1.currency]![plan] * Self.rates[$1.currency]! }
        }
        for (key, trialDays) in [("percent", 3), ("months", 7)] {
            let metric = try #require(variants.first { $0["key"] as? String == key }.flatMap { ($0["metrics"] as? [String: [String: Any]])?["revenue_per_user"] })
            let sum = try #require(metric["sum"] as? Double), expected = try #require(hand[key])
            // The JSON gives a total to the cent.
            #expect(abs(sum - expected) <= 0.005 + 1e-9 * expected, "\(key): report \(sum), by hand \(expected)")

            let rates = defaults.merging(own[key] ?? [:]) { $1 }
            let truth = DemoStoryTests.trueRevenuePerUser(rates, trialDays: trialDays, monthly: meanPrice(0), annual: meanPrice(1))
            let arm = try #require(forecast[key], "\(key)")
            #expect(arm["null_reasons"] == nil, "\(key): \(arm)")
            let ci = try #require(arm["ci"] as? [Double], "\(key): \(arm["null_reason"] ?? "")")
            let point = try #require(arm["revenue_per_user"] as? Double)
            #expect(ci[0] <= truth && truth <= ci[1], "\(key): truth \(truth) against \(point) \(ci)")
            print("storefront forecast \(key): truth \(truth), forecast \(point) \(ci); revenue \(sum), by hand \(expected); payments by currency \(payments)")
        }
    }
}
