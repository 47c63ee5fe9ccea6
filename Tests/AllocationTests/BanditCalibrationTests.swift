import Foundation
import Statistics
import TestSupport
import Testing
@testable import Allocation

/// Bandits keep their inference honest. `ABCTL_CALIBRATION=full` (100 seeds) is the calibration run;
/// `make test` runs 30 seeds with bands wide enough for that many.
@Suite(.tags(.calibration)) struct BanditCalibrationTests {
    static let seeds = CalibrationSize(quick: 30, full: 100).count

    /// Five equal arms (10%), 14 days of 600 users: the stratified comparisons reject at about 5%,
    /// their intervals cover the truth (0) at about 95%, and no more than `alpha` of the runs name a winner.
    @Test func anAABanditStaysAtAlpha() throws {
        var tests = 0, rejected = 0, covered = 0, winners = 0
        for seed in 1...Self.seeds {
            let run = try BanditRun(seed: UInt64(seed), arms: 5, days: 14, usersPerDay: 600) { _, _ in 0.10 }
            for c in run.comparisons() {
                let c = try #require(c)
                tests += 1
                if c.pValue < 0.05 { rejected += 1 }
                if c.interval[0] <= 0 && 0 <= c.interval[1] { covered += 1 }
            }
            if try run.winner() != nil { winners += 1 }
        }
        let rejection = Double(rejected) / Double(tests), coverage = Double(covered) / Double(tests), named = Double(winners) / Double(Self.seeds)
        // 3 standard errors of a 5% rate over this many tests, at least the 1.5 points.
        let band = max(0.015, 3 * (0.05 * 0.95 / Double(tests)).squareRoot())
        print("bandit A/A, \(Self.seeds) seeds, \(tests) stratified comparisons: rejected \(rejection), covered \(coverage), runs naming a winner \(named)")
        #expect(abs(rejection - 0.05) <= band, "rejected \(rejection) of \(tests)")
        #expect(abs(coverage - 0.95) <= band, "covered \(coverage) of \(tests)")
        #expect(named <= 0.05 + 3 * (0.05 * 0.95 / Double(Self.seeds)).squareRoot(), "\(winners) of \(Self.seeds) named a winner")
    }

    /// One arm of five is 20% better (12% against 10%): over 30 days the bandit moves weight to it
    /// (at least 0.6 by the last period) and delivers more trial starts than a fixed equal split on
    /// the same users.
    @Test func weightMovesToTheBetterArm() throws {
        let run = try BanditRun(seed: 7, arms: 5, days: 30, usersPerDay: 1000) { arm, _ in arm == 3 ? 0.12 : 0.10 }
        let last = try #require(run.weights.last)
        print("better arm: last weights \(last.map { ($0 * 1000).rounded() / 1000 }), trial starts bandit \(run.banditRewards) vs fixed \(run.fixedRewards) (\(Double(run.banditRewards) / Double(run.fixedRewards)))")
        #expect(last[3] >= 0.6, "\(last)")
        #expect(run.banditRewards > run.fixedRewards)
        #expect(try run.winner() == 3)
        // The floor holds: every arm keeps at least min_share.
        #expect(run.weights.allSatisfy { $0.allSatisfy { $0 >= 0.05 - 1e-12 } })
        // Period 0 and the burn-in keep the file's equal weights.
        #expect(run.weights[0] == [0.2, 0.2, 0.2, 0.2, 0.2])
    }

    /// Arrivals whose base rate doubles halfway while the weights move: the stratified estimate of
    /// the better arm's effect (+0.02 in every period) covers the truth; the pooled one does not,
    /// since the better arm got more of its users after the doubling.
    @Test func driftDoesNotPoseAsAnEffect() throws {
        let run = try BanditRun(seed: 11, arms: 5, days: 30, usersPerDay: 1000) { arm, day in (day < 15 ? 0.06 : 0.12) + (arm == 3 ? 0.02 : 0) }
        let stratified = try #require(run.comparisons()[2])
        let pooled = run.pooled(3)
        print("drift: stratified \(stratified.difference) \(stratified.interval), pooled \(pooled.difference) \(pooled.interval), truth 0.02")
        #expect(stratified.interval[0] <= 0.02 && 0.02 <= stratified.interval[1])
        #expect(!(pooled.interval[0] <= 0.02 && 0.02 <= pooled.interval[1]))
    }
}
