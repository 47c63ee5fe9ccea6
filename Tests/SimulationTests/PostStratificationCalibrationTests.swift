import Assignment
import Events
import ExperimentDefinitions
import Foundation
import Reporting
import TestSupport
import Testing
@testable import Simulation

/// A/A calibration of post-stratification (`metrics.adjust_for`) through the simulate path
/// as `CalibrationTests` runs it (Simulator → real assignment → `FactsBuilder` facts → report). The
/// truth makes country explain the primary strongly (trial starts 70% in the US, 10% elsewhere; half
/// the users are in the US) and both arms equal: the adjusted test should flag about 5% of
/// comparisons, its 95% intervals should cover the true difference (0) about 95% of the time, and its
/// variance should be about 1 − (0.5·0.21 + 0.5·0.09) / 0.24 = 37.5% below the unadjusted one.
///
/// `ABCTL_CALIBRATION=full`: 100 seeds × 10 independent experiments over the same users (each its own
/// hash seed) give 1,000 adjusted comparisons, a standard error of 0.69 points on a 5% share, so ±1.5
/// points is about 2.2 standard errors. `make test` runs seeds 1...40: 400 comparisons held to the same
/// 2.2 standard errors, ±2.4 points. The mean variance reduction keeps its ±0.03 at every size: the
/// seeds' spread around the truth's 37.5% is a small part of it at 400 comparisons already.
/// Seeds fixed, not chosen; every comparison counts.
/// `Tests/EndToEndTests/PostStratificationBinaryTests.swift` runs the same truth through the binary.
@Suite(.tags(.calibration)) struct PostStratificationCalibrationTests {
    static let seeds = CalibrationSize(quick: 40, full: 100).seeds
    static let experiments = 10
    static let usersPerSeed = 1200

    static func truth() -> Truth {
        var truth = Truth()
        truth.population.attributes = [("country", [("US", 0.5), ("GB", 0.25), ("DE", 0.25)]), ("platform", [("ios", 0.6), ("android", 0.4)])]
        truth.defaultBy = [.init(attribute: "country", value: "US", rates: ["trial_start": 0.7]),
                           .init(attribute: "country", value: "GB", rates: ["trial_start": 0.1]),
                           .init(attribute: "country", value: "DE", rates: ["trial_start": 0.1])]
        return truth
    }

    @Test func adjustedFalsePositivesCoverageAndVarianceReduction() throws {
        let aa = try AAExperiments(count: Self.experiments,
                                   metrics: #"{ "primary": "trial_start_rate", "guardrails": [], "adjust_for": ["country"] }"#)
        defer { aa.removeFolder() }
        var compared = 0, flagged = 0, covered = 0, plainFlagged = 0
        var reductions: [Double] = []
        let began = Date()
        for seed in Self.seeds {
            for report in try aa.reports(truth: Self.truth(), options: .init(users: Self.usersPerSeed, seed: seed, days: 3, tailDays: 1)) {
                let c = try #require(report.comparison("b", .named("trial_start_rate")))
                let adjustment = try #require(c.adjustment, "seed \(seed) \(report.figures.experimentID): not adjusted")
                let p = try #require(c.pValue), ci = try #require(c.absoluteCI)
                compared += 1
                if p < 0.05 { flagged += 1 }
                if ci.contains(0) { covered += 1 }
                if let plain = adjustment.unadjusted.pValue, plain < 0.05 { plainFlagged += 1 }
                reductions.append(try #require(adjustment.varianceReduction, "\(adjustment.varianceReductionNullReason ?? "")"))
            }
        }
        let falsePositives = Double(flagged) / Double(compared), coverage = Double(covered) / Double(compared)
        let meanReduction = reductions.reduce(0, +) / Double(reductions.count)
        #expect(compared == Self.seeds.count * Self.experiments)
        let tolerance = AATally.tolerance(comparisons: compared)   // ±1.5 points at 1,000, ±2.4 at 400
        #expect(abs(falsePositives - 0.05) <= tolerance, "\(flagged) of \(compared) adjusted comparisons below 0.05")
        #expect(abs(coverage - 0.95) <= tolerance, "\(covered) of \(compared) adjusted 95% intervals cover 0")
        #expect(abs(meanReduction - 0.375) <= 0.03, "mean variance reduction \(meanReduction)")
        print("A/A post-stratified (adjust_for country): \(flagged) of \(compared) below 0.05 (\(String(format: "%.1f", 100 * falsePositives))%; unadjusted \(plainFlagged)), coverage \(String(format: "%.1f", 100 * coverage))%, mean variance reduction \(String(format: "%.3f", meanReduction)) in \(String(format: "%.0f", Date().timeIntervalSince(began))) s")
    }
}
