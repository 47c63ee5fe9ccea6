import Assignment
import Events
import ExperimentDefinitions
import Foundation
import Reporting
import TestSupport
import Testing
@testable import Simulation

/// A/A calibration through the simulate path (Simulator -> real assignment -> each user's facts by
/// `FactsBuilder`, as every store computes them -> report). The facts are built in memory rather than
/// through SQLite to keep 100 seeds fast; StoreConformanceTests holds each store to `FactsBuilder`.
/// with every variant equal, a 5% test should flag about 5% of comparisons and its 95% intervals
/// should contain the true difference, 0, about 95% of the time.
///
/// 100 seeds alone would give 100 comparisons per metric, whose false-positive share has a standard
/// error of 2.2 points: a ±1.5-point check could not tell a calibrated test from a broken one. So each
/// seed runs `experiments` two-arm experiments at once, each with its own hash seed: every user is in
/// all of them, split independently, so their comparisons are uncorrelated (the sign of one split says
/// nothing about another's) and each seed adds `experiments` comparisons per metric. Over 100 seeds that
/// is 1,000 comparisons per metric: a standard error of 0.69 points, so ±1.5 points is about 2.2 standard
/// errors. The seeds are 1...100, fixed, not chosen; every comparison counts (no filtering).
///
/// That is `ABCTL_CALIBRATION=full`, the calibration (about 40 s of CPU in a debug build). `make test`
/// runs seeds 1...40: 400 comparisons per metric, held to
/// the same 2.2 standard errors, ±2.4 points (a 5% test flagging under 2.6% or over 7.4% fails).
@Suite(.tags(.calibration)) struct CalibrationTests {
    static let seeds = CalibrationSize(quick: 40, full: 100).seeds
    static var tolerance: Double { AATally.tolerance(comparisons: seeds.count * experiments) }
    static let experiments = 10
    static let usersPerSeed = 1600
    static let metrics = ["revenue_per_user_d14", "paid_conversion_d14"]

    @Test func falsePositivesAndCoverageAreCalibrated() throws {
        let aa = try AAExperiments(count: Self.experiments,
                                   metrics: #"{ "primary": "paid_conversion_d14", "secondary": ["revenue_per_user_d14"] }"#)
        defer { aa.removeFolder() }
        var tally = AATally(metrics: Self.metrics)
        for seed in Self.seeds {
            for report in try aa.reports(options: .init(users: Self.usersPerSeed, seed: seed, days: 14)) {
                try tally.record(report, seed: seed)
            }
        }
        tally.check(comparisons: Self.seeds.count * Self.experiments, tolerance: Self.tolerance, label: "A/A")
    }
}
