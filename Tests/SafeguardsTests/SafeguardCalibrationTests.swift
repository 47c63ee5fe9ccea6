import Events
import ExperimentDefinitions
import Foundation
import Statistics
import Testing
import TestSupport
@testable import Safeguards

/// Safeguards evaluated on the schedule for the whole run: on A/A data they stop an arm
/// at most alpha of the time; an arm with 1.5× the Day-0 cancel rate is stopped.
@Suite(.tags(.calibration)) struct SafeguardCalibrationTests {
    /// The times the server would evaluate at: every `check_minutes` from start until every user is mature.
    static func schedule(_ e: Experiment, days: Int) -> [Date] {
        let step = e.safeguards!.checkMinutes * 60
        let end = SimulatedRun.t0.addingTimeInterval(Double(days) * 86_400)
        return Array(stride(from: SimulatedRun.t0.addingTimeInterval(step), through: end, by: step))
    }

    /// The first look at which any (arm, metric) is harmful, with its findings.
    static func firstStop(_ e: Experiment, _ run: SimulatedRun, days: Int) throws -> (Date, [SafeguardEvaluator.Finding])? {
        let facts = MemoryFacts(rows: run.facts), scales = MemorySafeguardScales()
        for look in schedule(e, days: days) {
            let findings = try SafeguardEvaluator.evaluate(e, facts: facts, scales: scales, now: look)
            if findings.contains(where: \.harmful) { return (look, findings) }
        }
        return nil
    }

    @Test func aaRunsStopAtMostTenOfAHundred() throws {
        // Looks every 12 hours keep this inside make test's budget; tools/safeguards-calibration.sh
        // runs the same through the binary on a denser schedule.
        let e = Experiment.guarded(checkMinutes: 720)
        var stopped = 0
        // 14 days of arrivals, then until the last refunds are mature (3 + 3 + 14 days later).
        for seed in 0..<100 {
            let run = SimulatedRun(seed: UInt64(seed), users: 2000, days: 14, day0: [0.2, 0.2])
            if try Self.firstStop(e, run, days: 34) != nil { stopped += 1 }
        }
        print("safeguards A/A: \(stopped) of 100 runs stopped an arm (alpha 0.05, 2 metrics, looks every \(Int(e.safeguards!.checkMinutes)) min for 34 days)")
        #expect(stopped <= 10)
    }

    @Test func aHarmfulArmIsStoppedAndTheUsersAreComparedWithThePowerCalculation() throws {
        let e = Experiment.guarded(checkMinutes: 60)
        let run = SimulatedRun(seed: 2026, users: 20_000, days: 14, day0: [0.2, 0.3])
        let (at, findings) = try #require(try Self.firstStop(e, run, days: 34))
        let finding = try #require(findings.first { $0.harmful })
        let figures = try #require(finding.figures)
        #expect(finding.metric == "day0_cancel_rate" && finding.arm == "treatment")
        #expect(figures.interval[0] > 0)
        let power = try SampleSize(baseline: 0.2, relativeMDE: 0.5, alpha: figures.level, power: 0.8)
        let hours = at.timeIntervalSince(SimulatedRun.t0) / 3600
        print("safeguards 1.5x Day-0 cancels: stopped after \(Int(hours)) h with \(figures.armUsers) mature trial starters in the arm and \(figures.controlUsers) in the control (\(finding.armExposed) exposed in the arm); a fixed-horizon test at level \(figures.level) with 80% power needs \(power.usersPerVariant) per arm")
        #expect(figures.armUsers < 6 * power.usersPerVariant)
    }
}
