import Events
import ExperimentDefinitions
import Foundation
@testable import Reporting
import Testing

/// The forecast in every currency. Payers are told to a plan by `product_id` and renew at
/// their own last payment, converted: the same payers paying in EUR or JPY get the forecast of
/// paying in USD, scaled by what their price is worth in USD. A payer whose plan cannot be told is
/// named in `null_reasons`, never dropped silently.
@Suite struct ForecastCurrencyTests {
    static let eur = 1.08, jpy = 0.0067
    static let products = Products(currency: "USD", offerings: ["chorus_plus": [
        "monthly": .init(productID: "chorus.plus.monthly", price: 9.99, period: "P1M"),
        "annual": .init(productID: "chorus.plus.annual", price: 59.99, period: "P1Y"),
    ]], exchangeRates: ["EUR": eur, "JPY": jpy])
    static let experiment = Experiment(id: "fx", name: "Currencies", status: .running,
                                       variants: [Variant(key: "control", paywall: Paywall(offering: "chorus_plus", trialDays: 0, copy: .staticText("Hi."))),
                                                  Variant(key: "b", paywall: Paywall(offering: "chorus_plus", trialDays: 0, copy: .staticText("Hi.")))])
    static let day: Int64 = 86_400_000_000
    static let start: Int64 = 1_767_225_600_000_000   // 2026-01-01
    static let asOf = Date(timeIntervalSince1970: Double(start + 300 * day) / 1_000_000)

    /// 400 users per arm, the same behaviour whatever the currency: a third never pay; payers make
    /// 1 to 8 monthly payments of `price` in `currency`, and those who stop cancel after their last.
    /// `payment`: more keys for each payment line (`,"store":"app_store"`), given the user's number.
    static func facts(price: Double, currency: String, productID: String? = "chorus.plus.monthly",
                      payment: (Int) -> String = { _ in "" }) throws -> [UserFacts] {
        let parser = EventParser(currency: products.converter)
        var rows: [UserFacts] = []
        for n in 0..<800 {
            let user = UserID("u\(n)")
            let exposed = start + Int64(n % 40) * day
            func ts(_ t: Int64) -> String { RFC3339.format(Date(timeIntervalSince1970: Double(t) / 1_000_000)) }
            var lines = [#"{"event_id":"x","type":"exposure","user_id":"\#(user)","experiment":"fx","variant":"\#(n % 2 == 0 ? "control" : "b")","ts":"\#(ts(exposed))"}"#]
            if n % 3 != 0 {
                let payments = 1 + (n * 7) % 8
                let product = productID.map { #","product_id":"\#($0)""# } ?? ""
                for k in 0..<payments {
                    lines.append(#"{"event_id":"p\#(k)","type":"\#(k == 0 ? "purchased" : "renewed")","user_id":"\#(user)","ts":"\#(ts(exposed + day + Int64(k) * 30 * day))","revenue":\#(price),"currency":"\#(currency)"\#(product)\#(payment(n))}"#)
                }
                // Payers with fewer than 8 payments stop: most cancel, the rest are overdue.
                if payments < 8 && n % 5 != 0 {
                    lines.append(#"{"event_id":"c","type":"cancelled","user_id":"\#(user)","ts":"\#(ts(exposed + day + Int64(payments - 1) * 30 * day + 3600_000_000))"}"#)
                }
            }
            let events = try lines.map { line -> Event in
                guard case .success(let e)? = parser.parse(line: line) else { throw CancellationError() }
                return e
            }
            rows += FactsBuilder.facts(userID: user, events: events)
        }
        return rows
    }

    static func forecast(_ rows: [UserFacts]) throws -> [ArmForecast] {
        var acc = ForecastAccumulator(experiment: experiment, products: products, asOf: asOf)
        for r in rows { acc.add(r) }
        return try #require(try ForecastAnalysis.forecast(acc, draws: 200))
    }

    @Test func eurAndJpyPayersForecastAsInUSDAfterConversion() throws {
        let usd = try Self.forecast(Self.facts(price: 9.99, currency: "USD"))
        #expect(usd.allSatisfy { $0.revenuePerUser != nil && $0.model["P1M"] != nil }, "\(usd)")
        for (price, currency, rate) in [(9.99, "EUR", Self.eur), (1500.0, "JPY", Self.jpy)] {
            let other = try Self.forecast(Self.facts(price: price, currency: currency))
            // Each USD figure scaled by what the payer's own price is worth in USD against 9.99.
            let scale = price * rate / 9.99
            for (a, b) in zip(usd, other) {
                let expected = try #require(a.revenuePerUser) * scale, got = try #require(b.revenuePerUser, "\(currency): \(b)")
                #expect(abs(got - expected) <= 1e-9 * expected, "\(currency) \(b.variant): \(got) against \(expected)")
                #expect(abs(b.ci!.lower - a.ci!.lower * scale) <= 1e-9 * expected && abs(b.ci!.upper - a.ci!.upper * scale) <= 1e-9 * expected)
                #expect(b.model["P1M"]?.alpha == a.model["P1M"]?.alpha && b.model["P1M"]?.payers == a.model["P1M"]?.payers)
                #expect(b.nullReasons.isEmpty)
            }
        }
    }

    @Test func aPayerWhosePlanCannotBeToldIsNamed() throws {
        let rows = try Self.facts(price: 9.99, currency: "EUR", productID: "chorus.plus.weekly-promo")
        let forecasts = try Self.forecast(rows)
        for f in forecasts {
            let reason = try #require(f.nullReasons["unplaced_payers"], "\(f)")
            #expect(reason.hasPrefix("266 payers whose plan cannot be told") || reason.hasPrefix("267 payers whose plan cannot be told"), "\(reason)")
        }
        let json = JSONReportRenderer.forecast(forecasts).serialized()
        #expect(json.contains(#""null_reasons":{"unplaced_payers":"#), "\(json.prefix(600))")
    }
}
