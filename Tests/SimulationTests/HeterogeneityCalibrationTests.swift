import Assignment
import Events
import ExperimentDefinitions
import Foundation
import Reporting
import TestSupport
import Testing
@testable import Simulation

/// A/A calibration of the segments' heterogeneity test (Cochran's Q), through the simulate
/// path as `CalibrationTests` runs it (Simulator → real assignment → `FactsBuilder` facts → report with
/// `--by platform --by country`). With every arm equal in every segment, Q's p-value should fall below
/// 0.05 about 5% of the time and below 0.01 (where the report says the effect differs) about 1%.
///
/// Each seed runs `experiments` independent two-arm A/A experiments over the same users (each with its
/// own hash seed), each split by platform (2 values) and country (4 values): 20 seeds
/// (`ABCTL_CALIBRATION=full`) give 480 heterogeneity tests, a standard error of 1.0 point on a 5% share;
/// `make test` runs 10 seeds, 240 tests, held to as many standard errors. Seeds fixed, not chosen.
@Suite(.tags(.calibration)) struct HeterogeneityCalibrationTests {
    static let seeds = CalibrationSize(quick: 10, full: 20).seeds
    static let experiments = 12
    static let usersPerSeed = 2000

    @Test func anEffectThatDoesNotDifferIsFlaggedAtItsLevel() throws {
        let aa = try AAExperiments(count: Self.experiments, metrics: #"{ "primary": "trial_start_rate", "guardrails": [] }"#)
        defer { aa.removeFolder() }
        var tests = 0, below05 = 0, below01 = 0
        let began = Date()
        for seed in Self.seeds {
            for report in try aa.reports(options: .init(users: Self.usersPerSeed, seed: seed, days: 14), segments: ["platform", "country"]) {
                #expect(report.segments.map(\.dimension) == ["platform", "country"])
                for d in report.segments {
                    let h = try #require(d.heterogeneity.first { $0.metric.name == "trial_start_rate" && $0.variant == "b" })
                    let p = try #require(h.pValue, "seed \(seed) \(report.figures.experimentID) \(d.dimension): \(h.nullReason ?? "")")
                    #expect(h.cells == (d.dimension == "platform" ? 2 : 4), "every value stands alone: \(d.cells.map(\.value))")
                    tests += 1
                    if p < 0.05 { below05 += 1 }
                    if p < 0.01 { below01 += 1 }
                }
            }
        }
        let share05 = Double(below05) / Double(tests), share01 = Double(below01) / Double(tests)
        #expect(tests == Self.seeds.count * Self.experiments * 2)
        // ±2.5 points around 5% and at most 1.5 points over 1% at 480 tests, as many standard errors at
        // any other size (±3.5 and 3.1% at 240).
        let scale = (480 / Double(tests)).squareRoot()
        #expect(abs(share05 - 0.05) <= 0.025 * scale, "\(below05) of \(tests) below 0.05")
        #expect(share01 <= 0.01 + 0.015 * scale, "\(below01) of \(tests) below 0.01 (the report's 'differs')")
        print("A/A heterogeneity: \(below05) of \(tests) below 0.05 (\(String(format: "%.1f", 100 * share05))%), \(below01) below 0.01 (\(String(format: "%.1f", 100 * share01))%) in \(String(format: "%.0f", Date().timeIntervalSince(began))) s")
    }
}
