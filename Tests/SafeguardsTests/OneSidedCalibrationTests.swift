import Events
import ExperimentDefinitions
import Foundation
import Statistics
import Testing
import TestSupport
@testable import Safeguards

/// The one-sided safeguard test's level and power by simulation, through `SafeguardEvaluator`
/// on simulated facts: a two-arm experiment guarded on Day-0 cancels alone (level alpha = 0.05),
/// 4,000 users over 14 days (about 1,000 trial starters per arm, all mature a day after the last).
///
/// `make test` runs 100 experiments per figure; `ABCTL_CALIBRATION=full` runs 1,000, the calibration (the
/// figures in docs/Safeguards.md). The level's bound follows the count.
@Suite(.tags(.calibration)) struct OneSidedCalibrationTests {
    static let runs = CalibrationSize(quick: 100, full: 1000).count

    static func experiment(checkMinutes: Double) -> Experiment {
        var e = Experiment.guarded(checkMinutes: checkMinutes)
        e.safeguards?.metrics = [.day0CancelRate]
        return e
    }

    /// The first harmful finding over looks every `checkMinutes` for `days`, or nil.
    static func firstStop(_ e: Experiment, _ run: SimulatedRun, days: Int) throws -> SafeguardEvaluator.Finding? {
        let facts = MemoryFacts(rows: run.facts), scales = MemorySafeguardScales()
        for look in SafeguardCalibrationTests.schedule(e, days: days) {
            if let harmful = try SafeguardEvaluator.evaluate(e, facts: facts, scales: scales, now: look).first(where: \.harmful) { return harmful }
        }
        return nil
    }

    /// At most alpha plus two binomial standard errors of `runs` (the figure itself is printed).
    static func withinLevel(_ stopped: Int, runs: Int, alpha: Double = 0.05) -> Bool {
        Double(stopped) / Double(runs) <= alpha + 2 * (alpha * (1 - alpha) / Double(runs)).squareRoot()
    }

    @Test func aaDailyLooksStopAtMostAlpha() throws {
        let e = Self.experiment(checkMinutes: 1440)
        var stopped = 0
        for seed in 0..<Self.runs where try Self.firstStop(e, SimulatedRun(seed: UInt64(10_000 + seed), users: 4000, days: 14, day0: [0.2, 0.2]), days: 15) != nil {
            stopped += 1
        }
        print("one-sided safeguards A/A, daily looks for 15 days: \(stopped) of \(Self.runs) experiments stopped an arm (alpha 0.05)")
        #expect(Self.withinLevel(stopped, runs: Self.runs))
    }

    /// Looks every 15 minutes for 15 days: 1,440 looks. The evaluator reads every user at every look, so
    /// this runs on the statistic with the same mature Day-0 outcomes the evaluator would count.
    @Test func aaLooksEveryFifteenMinutesStopAtMostAlpha() throws {
        let e = Self.experiment(checkMinutes: 15)
        let config = try #require(e.safeguards)
        var stopped = 0
        for seed in 0..<Self.runs {
            let run = SimulatedRun(seed: UInt64(20_000 + seed), users: 4000, days: 14, day0: [0.2, 0.2])
            let rule = MatureOutcome(metric: .day0CancelRate, experiment: e)
            // Each trial starter's maturity time and outcome, per arm, in maturity order.
            var entries: [(at: Int64, arm: Int, hit: Bool)] = []
            for f in run.facts {
                guard let start = f.trialStart?.microseconds else { continue }
                let arm = f.variant == "control" ? 0 : 1
                let at = start + rule.day0Window
                entries.append((at, arm, rule.value(FactTimes(f, arm: arm), arm: arm, now: at) ?? false))
            }
            entries.sort { $0.at < $1.at }
            var exposedIndex = 0, exposed = [0, 0]
            var n = [0, 0], k = [0, 0], next = 0
            // Fixed at the first look that tests the arm, as the evaluator keeps it.
            var tau2: Double?
            for look in SafeguardCalibrationTests.schedule(e, days: 15) {
                let now = Timestamp(look).microseconds
                while exposedIndex < run.facts.count, run.facts[exposedIndex].firstExposure.microseconds <= now {
                    exposed[run.facts[exposedIndex].variant == "control" ? 0 : 1] += 1
                    exposedIndex += 1
                }
                while next < entries.count, entries[next].at <= now {
                    n[entries[next].arm] += 1
                    if entries[next].hit { k[entries[next].arm] += 1 }
                    next += 1
                }
                guard exposed[1] >= config.minUsers, n[0] > 0, n[1] > 0 else { continue }
                let control = try Proportion(count: k[0], total: n[0]), arm = try Proportion(count: k[1], total: n[1])
                let scale = tau2 ?? OneSidedSequentialTest.mixingVariance(controlRate: control.rate, minimumHarm: config.minimumHarm)
                tau2 = scale
                let t = try SafeguardEvaluator.test(harm: arm.rate - control.rate, variance: control.varianceOfRate + arm.varianceOfRate,
                                                    mixingVariance: scale, level: config.alpha)
                if t.look.rejected { stopped += 1; break }
            }
        }
        print("one-sided safeguards A/A, looks every 15 minutes for 15 days: \(stopped) of \(Self.runs) experiments stopped an arm (alpha 0.05)")
        #expect(Self.withinLevel(stopped, runs: Self.runs))
    }

    @Test func aFortyPercentDay0HarmIsFoundByAThousandStartersPerArm() throws {
        let e = Self.experiment(checkMinutes: 1440)
        var found = 0
        var starters: [Int] = []
        for seed in 0..<Self.runs {
            let run = SimulatedRun(seed: UInt64(30_000 + seed), users: 4000, days: 14, day0: [0.2, 0.28])
            if let stop = try Self.firstStop(e, run, days: 15), let f = stop.figures {
                found += 1
                starters.append(f.armUsers)
            }
        }
        let median = starters.sorted().dropFirst(starters.count / 2).first ?? 0
        print("one-sided safeguards, Day-0 cancels 20% -> 28%, daily looks, about 1,000 trial starters per arm by the last look: found in \(found) of \(Self.runs) experiments (median \(median) mature trial starters in the arm at the stop)")
        // 90% of experiments, less two binomial standard errors of the runs.
        #expect(Double(found) / Double(Self.runs) >= 0.9 - 2 * (0.09 / Double(Self.runs)).squareRoot())
    }
}
