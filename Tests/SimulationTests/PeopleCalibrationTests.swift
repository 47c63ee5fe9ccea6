import Events
import Foundation
import Reporting
import TestSupport
import Testing
@testable import Simulation

/// A/A with log-ins: the simulate path of `CalibrationTests`, where 60%
/// of exposed users log in 10-50 s after their exposure (`population.login`) and buy under the
/// known id (`purchase_under: "known"`), so a report that counts people must join the purchases
/// to the anonymous exposures through the `identified` events. Each seed runs `experiments`
/// independent two-arm experiments (see `CalibrationTests` for why); every user logs in once, so
/// a person's ids saw one arm of each. Every comparison counts.
///
/// `ABCTL_CALIBRATION=full` (100 seeds) is the calibration (`tools/people_aa_calibration.sh`, figures in
/// docs/People.md): 1,000 comparisons per metric, held to ±1.5 points. `make test` runs seeds
/// 1...30: 300 per metric, held to the same 2.2 standard errors, ±2.7 points.
@Suite(.tags(.calibration)) struct PeopleCalibrationTests {
    static let seeds = CalibrationSize(quick: 30, full: 100).seeds
    static var tolerance: Double { AATally.tolerance(comparisons: seeds.count * experiments) }
    static let experiments = 10
    static let usersPerSeed = 1600
    static let metrics = ["revenue_per_user_d14", "paid_conversion_d14"]

    @Test func falsePositivesAndCoverageAreCalibratedWithLogIns() throws {
        let aa = try AAExperiments(count: Self.experiments,
                                   metrics: #"{ "primary": "paid_conversion_d14", "secondary": ["revenue_per_user_d14"] }"#)
        defer { aa.removeFolder() }
        var truth = Truth()
        truth.population.login = 0.6
        truth.population.purchaseUnder = .known
        var tally = AATally(metrics: Self.metrics)
        var logIns = 0
        for seed in Self.seeds {
            for report in try aa.reports(truth: truth, options: .init(users: Self.usersPerSeed, seed: seed, days: 14), people: true) {
                // Every exposed user is one person: logged-in persons are keyed by their known id.
                #expect(report.figures.users == Self.usersPerSeed, "seed \(seed) \(report.figures.experimentID)")
                try tally.record(report, seed: seed)
            }
            if seed == Self.seeds.first {
                // The log-ins happened (60% of users).
                logIns = try aa.logIns(truth: truth, options: .init(users: Self.usersPerSeed, seed: seed, days: 14))
            }
        }
        #expect(abs(Double(logIns) / Double(Self.usersPerSeed) - 0.6) < 0.05, "\(logIns) log-ins of \(Self.usersPerSeed)")
        tally.check(comparisons: Self.seeds.count * Self.experiments, tolerance: Self.tolerance, label: "A/A with log-ins",
                    detail: " (\(Self.seeds.count) seeds, tolerance ±\(String(format: "%.1f", 100 * Self.tolerance)) points)")
    }
}

extension AAExperiments {
    /// How many of one seed's users logged in (its `identified` events).
    func logIns(truth: Truth, options: Simulator.Options) throws -> Int {
        var identifies = 0
        _ = try Simulator(catalog: catalog, assigner: assigner, truth: truth, options: options).run { batch in
            identifies += batch.filter { $0.type == .identified }.count
            return AppendResult(stored: batch.count)
        }
        return identifies
    }
}
