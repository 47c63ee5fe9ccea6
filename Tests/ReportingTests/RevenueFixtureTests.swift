import Events
import ExperimentDefinitions
import Foundation
import Statistics
import Testing
@testable import Reporting

/// Capping, Welch on capped values, and horizon counts against numpy and scipy
/// (`Fixtures/revenue/make_revenue_fixtures.py` wrote the expected values).
@Suite struct RevenueFixtureTests {
    static func cases(_ name: String) throws -> [[String: Any]] {
        var url = URL(fileURLWithPath: #filePath)
        url.deleteLastPathComponent()
        let data = try Data(contentsOf: url.appendingPathComponent("Fixtures/revenue/\(name).json"))
        let file = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return try #require(file["cases"] as? [[String: Any]])
    }

    static func close(_ a: Double, _ b: Double, tolerance: Double = 1e-9) -> Bool { abs(a - b) <= tolerance * max(1, abs(b)) }

    /// The cap is numpy's linear quantile of the positive values pooled over both variants (or the fixed
    /// amount), and Welch's test on the capped values matches scipy's ttest_ind(equal_var=False).
    @Test func cappingAndWelchOnCappedValuesMatchNumpyAndScipy() throws {
        let cases = try Self.cases("capping")
        #expect(cases.count >= 200)
        for (i, c) in cases.enumerated() {
            let spec = try #require(c["revenue_cap"] as? [String: Double])
            let config: RevenueCap = if let p = spec["percentile"] { .percentile(p) } else { .absolute(spec["absolute"]!) }
            let control = try #require(c["control_values"] as? [Double]), variant = try #require(c["variant_values"] as? [Double])
            let cap = try #require(try RevenueCapping.cap(config, values: [control, variant]))
            let expectedCap = try #require(c["cap"] as? Double)
            #expect(Self.close(cap, expectedCap, tolerance: 1e-12), "case \(i): cap \(cap) vs numpy \(expectedCap)")
            let sc = try RevenueCapping.summary(values: control, users: c["control_users"] as! Int, cap: cap)
            let sv = try RevenueCapping.summary(values: variant, users: c["variant_users"] as! Int, cap: cap)
            let w = try WelchTest(control: sc, variant: sv, alpha: 0.05)
            let ci = try #require(c["ci"] as? [Double])
            #expect(Self.close(w.meanDifference, c["mean_difference"] as! Double), "case \(i): difference")
            #expect(Self.close(w.pValue, c["p_value"] as! Double), "case \(i): p \(w.pValue) vs scipy \(c["p_value"]!)")
            #expect(Self.close(w.interval.lower, ci[0]) && Self.close(w.interval.upper, ci[1]), "case \(i): interval \(w.interval) vs scipy \(ci)")
        }
    }

    /// Every metric's _dN numerator and denominator (and revenue sum) per variant, from facts through the
    /// report's accumulator, against numpy's count over the same users.
    @Test func horizonCountsMatchNumpy() throws {
        let cases = try Self.cases("horizons")
        #expect(cases.count >= 200)
        for (i, c) in cases.enumerated() {
            let horizon = c["horizon"] as! Int
            let trialDays = c["trial_days"] as! [Int]
            let metrics = Metric.baseMetrics.map { Metric.named("\($0.name)_d\(horizon)") }
            let experiment = Experiment(
                id: "h", name: "Horizons", status: .running,
                metrics: MetricsConfig(secondary: metrics, day0WindowHours: c["day0_window_hours"] as! Double),
                variants: trialDays.enumerated().map { v, days in
                    Variant(key: "v\(v)", paywall: Paywall(offering: "o", trialDays: days, copy: .staticText("Hi.")))
                })
            let asOf = Date(timeIntervalSince1970: Double(c["as_of"] as! Int))
            var acc = ReportAccumulator(experiment: experiment, options: ReportOptions(clock: asOf))
            func micros(_ v: Any?) -> Int64? { (v as? Int).map { Int64($0) * 1_000_000 } }
            for (u, user) in (c["users"] as! [[String: Any]]).enumerated() {
                let entries = (user["revenue_entries"] as! [[Double]]).map { RevenueEntry(offset: Int64($0[0]) * 1_000_000, amount: $0[1]) }
                acc.add(UserFacts.row(userID: "u\(u)", variant: "v\(user["variant"] as! Int)", firstExposure: micros(user["first_exposure"])!,
                                  trialStart: micros(user["trial_start"]), firstPaid: micros(user["first_paid"]),
                                  firstConverted: micros(user["first_converted"]), firstCancel: micros(user["first_cancel"]),
                                  refunded: micros(user["refunded"]), netRevenue: entries.reduce(0) { $0 + $1.amount }, revenueEntries: entries,
                                  billingIssue: micros(user["billing_issue"])))
            }
            let expected = c["expected"] as! [String: [[String: Any]]]
            for m in metrics {
                // The fixture's entries name no store, so their proceeds are their revenue (no cut).
                let want = try #require(expected[m.isProceeds ? "revenue_per_user_d\(horizon)" : m.name])
                for v in 0..<2 {
                    let got = acc.tally(m, variant: v)
                    #expect(got.count == want[v]["count"] as? Int && got.denominator == want[v]["denominator"] as? Int,
                            "case \(i) \(m.name) v\(v): \(got.count)/\(got.denominator) vs numpy \(want[v]["count"]!)/\(want[v]["denominator"]!)")
                    if let sum = want[v]["sum"] as? Double {
                        #expect(Self.close(got.values.reduce(0, +), sum), "case \(i) \(m.name) v\(v): revenue")
                    }
                }
            }
        }
    }
}
