import Events
import ExperimentDefinitions
import Foundation
@testable import Reporting
import Statistics
import Testing
@testable import Allocation

/// A bandit's report (SPEC §5, §8): comparisons stratified by period, one sample ratio check over
/// period × arm cells against each period's weights, `chance_best`, the verdict, and `allocation`.
@Suite struct BanditReportTests {
    static func report(_ run: BanditRun, days: Int) throws -> Report {
        let options = ReportOptions(generatedAt: BanditRun.t0.addingTimeInterval(Double(days + 1) * 86_400))
        return try ReportBuilder.report(store: run.store, experiment: run.experiment, options: options)
    }

    @Test func aBetterArmIsNamedFromStratifiedFigures() throws {
        let run = try BanditRun(seed: 7, arms: 5, days: 20, usersPerDay: 1000) { arm, _ in arm == 3 ? 0.12 : 0.10 }
        let r = try Self.report(run, days: 20)
        let a = try #require(r.allocation)
        // Periods 0…20: 20 recorded by the run, the 21st (begun by the as-of time, no users) carried.
        #expect(a.periods.count == 21)
        #expect(a.periods.prefix(20).map(\.weights) == run.weights)
        #expect(a.periods.prefix(20).map(\.users) == (0..<20).map { d in run.cells.map { $0[d].users } })
        #expect(a.periods.first?.rule == "first" && a.periods[19].rule == "learned" && a.periods.last?.rule == "carried")
        let chance = try #require(a.chanceBest)
        #expect(chance[3] >= 0.95, "\(chance)")
        #expect(abs(chance.reduce(0, +) - 1) < 1e-6)
        #expect(r.decision.verdict == .ship && r.decision.winner == "arm3", "\(r.decision)")
        // The comparison the report shows is the period-stratified one, as StratifiedRates computes it.
        let c = try #require(r.comparisons.first { $0.metric.name == "trial_start_rate" && $0.variant == "arm3" })
        let reference = try #require(StratifiedRates.compare(control: run.cells[0], treatment: run.cells[3]))
        #expect(c.test == "period-stratified z-test")
        #expect(abs((c.absoluteDiff ?? 0) - reference.difference) < 1e-12 && abs((c.pValue ?? 0) - reference.pValue) < 1e-9)
        // The sample ratio check holds: arms were drawn with the recorded weights.
        #expect(r.srm.pValue != nil && !r.srm.flagged)
        // Every format carries it.
        let json = try #require(try JSONSerialization.jsonObject(with: Data(JSONReportRenderer.render(r).utf8)) as? [String: Any])
        let allocation = try #require(json["allocation"] as? [String: Any])
        #expect((allocation["periods"] as? [Any])?.count == 21)
        #expect(((allocation["chance_best"] as? [String: Double])?["arm3"] ?? 0) >= 0.95)
        let first = try #require((allocation["periods"] as? [[String: Any]])?.first)
        #expect(first["from"] as? String == "2026-12-01T00:00:00Z" && first["to"] as? String == "2026-12-02T00:00:00Z")
        #expect((first["weights"] as? [String: Double])?["control"] == 0.2 && (first["users"] as? [String: Int])?["arm3"] == run.cells[3][0].users)
        #expect(TextReportRenderer.render(r, color: false).contains("ALLOCATION (BANDIT)"))
        #expect(HTMLReportRenderer.render(r).contains("Each arm&#39;s weight per allocation period") || HTMLReportRenderer.render(r).contains("Each arm's weight per allocation period"))
    }

    @Test func anAABanditKeepsRunning() throws {
        let run = try BanditRun(seed: 3, arms: 5, days: 10, usersPerDay: 600) { _, _ in 0.10 }
        let r = try Self.report(run, days: 10)
        #expect(r.decision.verdict == .keepRunning && r.decision.winner == nil, "\(r.decision)")
        #expect(r.decision.reasons.first?.hasPrefix("A bandit keeps running") == true)
        #expect(!r.srm.flagged)
    }

    /// Users drawn against the weights (an arm given twice its share in one period) trip the
    /// per-period sample ratio check.
    @Test func theSampleRatioCheckReadsEachPeriodsWeights() {
        let periods = [AllocationResult.Period(index: 0, from: BanditRun.t0, to: nil, weights: [0.5, 0.5], users: [500, 500], rule: "first"),
                       AllocationResult.Period(index: 1, from: BanditRun.t0, to: nil, weights: [0.9, 0.1], users: [900, 100], rule: "learned")]
        #expect(!BanditAnalysis.sampleRatio(periods, variants: 2).flagged)
        let skewed = [periods[0], AllocationResult.Period(index: 1, from: BanditRun.t0, to: nil, weights: [0.9, 0.1], users: [800, 200], rule: "learned")]
        #expect(BanditAnalysis.sampleRatio(skewed, variants: 2).flagged)
        // Pooled over both periods the second case's totals (1300/700) say nothing against 0.7/0.3 mixed weights by themselves.
        let s = StratifiedRates.sampleRatio(users: [[800, 200]], weights: [[0.9, 0.1]])!
        #expect(s.degreesOfFreedom == 1 && abs(s.statistic - (100.0 * 100 / 900 + 100.0 * 100 / 100)) < 1e-9)
    }
}
