import Events
import ExperimentDefinitions
import Foundation
import Reporting
import TestSupport
import Testing
@testable import Simulation

/// A/A calibration of `billing_issue_rate`, through the simulate path as `CalibrationTests` runs it:
/// a truth whose charges fail (`billing_issue`, some recovered inside the grace) and whose cancels
/// are sometimes undone (`uncancel`), ten independent two-arm experiments per seed. A 5% test must
/// flag about 5% of the comparisons (1,000 at `ABCTL_CALIBRATION=full`, ±1.5 points; 400 at the
/// `make test` size, the same 2.2 standard errors, ±2.4 points), and the pooled rates must be the
/// truth's: billing issues over users whose first charge came due, and Day-0 cancels that stood.
@Suite(.tags(.calibration)) struct BillingIssueCalibrationTests {
    static let seeds = CalibrationSize(quick: 40, full: 100).seeds
    static let experiments = 10
    static let usersPerSeed = 1600

    static var truth: Truth {
        var t = Truth()
        t.defaultRates.billingIssue = 0.15
        t.defaultRates.billingRecovery = 0.15
        t.defaultRates.uncancel = 0.3
        return t
    }

    @Test func falsePositivesAndRatesAreCalibrated() throws {
        let aa = try AAExperiments(count: Self.experiments,
                                   metrics: #"{ "primary": "paid_conversion_d14", "guardrails": ["billing_issue_rate", "day0_cancel_rate"] }"#)
        defer { aa.removeFolder() }
        let names = ["billing_issue_rate"]
        var tally = AATally(metrics: names)
        var pooled: [String: (count: Int, denominator: Int)] = [:]
        for seed in Self.seeds {
            for report in try aa.reports(truth: Self.truth, options: .init(users: Self.usersPerSeed, seed: seed, days: 14)) {
                try tally.record(report, seed: seed)
                for variant in report.variants {
                    for name in ["billing_issue_rate", "day0_cancel_rate"] {
                        let m = try #require(variant.metric(.named(name)))
                        pooled[name, default: (0, 0)].count += m.count
                        pooled[name, default: (0, 0)].denominator += m.denominator
                    }
                }
            }
        }
        let comparisons = Self.seeds.count * Self.experiments
        tally.check(comparisons: comparisons, tolerance: AATally.tolerance(comparisons: comparisons), label: "A/A")

        // The pooled rates against the truth, within 4 standard errors (users of one seed are in all ten
        // experiments, so the pool counts each user ten times: its standard error is that of one experiment's pool).
        let rates = Self.truth.defaultRates
        for name in ["billing_issue_rate", "day0_cancel_rate"] {
            let expected = try #require(rates.expected(.named(name), trialDays: 3, day0WindowHours: 24))
            let (count, denominator) = try #require(pooled[name])
            let observed = Double(count) / Double(denominator)
            let se = (expected * (1 - expected) / (Double(denominator) / Double(Self.experiments))).squareRoot()
            #expect(abs(observed - expected) <= 4 * se, "\(name): observed \(observed), truth \(expected)")
            print("A/A \(name): pooled \(String(format: "%.4f", observed)), truth \(String(format: "%.4f", expected))")
        }
    }
}
