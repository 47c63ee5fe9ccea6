import Events
import ExperimentDefinitions
import Foundation
@testable import Reporting
import Statistics
import Testing
@testable import Allocation

/// A bandit's report: comparisons stratified by period, one sample ratio check over
/// period × arm cells against each period's weights, `chance_best`, the verdict, and `allocation`.
@Suite struct BanditReportTests {
    static func report(_ run: BanditRun, days: Int) throws -> Report {
        let options = ReportOptions(clock: BanditRun.t0.addingTimeInterval(Double(days + 1) * 86_400))
        return try ReportBuilder.report(source: run.store, experiment: run.experiment, options: options)
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

    /// A user counts in the period its exposure echoed, not the one its time falls in: 200
    /// users drawn with period 0's even weights but logged just after the boundary, into period 1
    /// (0.9/0.1), keep the per-period sample ratio check whole; placed by their time they would trip it.
    @Test func aUserCountsInThePeriodItsExposureEchoed() throws {
        let e = BanditRun.experiment(arms: 2)
        let day: Int64 = 86_400_000_000, start = Timestamp(BanditRun.t0).microseconds
        func rows(echo: Bool) -> MemoryBanditStore {
            let store = MemoryBanditStore()
            for (k, w) in [[0.5, 0.5], [0.9, 0.1]].enumerated() {
                _ = try? store.recordAllocationPeriod(AllocationPeriod(experiment: "bandit", index: k, from: Timestamp(microseconds: start + Int64(k) * day),
                                                                       weights: zip(["control", "arm1"], w).map { (variant: $0.0, weight: $0.1) },
                                                                       rule: k == 0 ? "first" : "learned", computedAt: Timestamp(microseconds: start + Int64(k) * day)))
            }
            var n = 0
            func add(_ arm: String, at ts: Int64, period: Int) {
                var f = UserFacts(experiment: "bandit", userID: UserID("u\(n)"), variant: arm, firstExposure: Timestamp(microseconds: ts))
                if echo { f.allocationPeriod = Timestamp(microseconds: start + Int64(period) * day) }
                store.append(f)
                n += 1
            }
            for i in 0..<1000 { add(i % 2 == 0 ? "control" : "arm1", at: start + Int64(i) * (day - 3_600_000_000) / 1000, period: 0) }
            // Assigned in period 0's last minutes, logged in period 1's first.
            for i in 0..<200 { add(i % 2 == 0 ? "control" : "arm1", at: start + day + Int64(i) * 1_000_000, period: 0) }
            for i in 0..<1000 { add(i % 10 == 0 ? "arm1" : "control", at: start + day + 3_600_000_000 + Int64(i) * 60_000_000, period: 1) }
            return store
        }
        let options = ReportOptions(clock: BanditRun.t0.addingTimeInterval(2 * 86_400 - 60))
        let echoed = try ReportBuilder.report(source: rows(echo: true), experiment: e, options: options)
        let byTime = try ReportBuilder.report(source: rows(echo: false), experiment: e, options: options)
        #expect(echoed.allocation?.periods.map(\.users) == [[600, 600], [900, 100]])
        #expect(byTime.allocation?.periods.map(\.users) == [[500, 500], [1000, 200]])
        #expect(!echoed.srm.flagged && byTime.srm.flagged, "\(echoed.srm) \(byTime.srm)")
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
