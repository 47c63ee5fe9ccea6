import Events
import ExperimentDefinitions
import Foundation
import Reporting
import Testing
import TestSupport
@testable import Safeguards

/// Maturity has one owner, `Experiment.maturityDays`: with 7-day trials and
/// `maturity_grace_days: 7` a user is mature 14 days after first exposure for the safeguards and
/// for the report alike (before, safeguards hard-coded 3 days' grace and read 10).
@Suite struct SharedMaturityTests {
    static let day: Int64 = 86_400_000_000
    static let now = SimulatedRun.t0.addingTimeInterval(30 * 86_400)

    static func experiment() -> Experiment {
        let paywall = Paywall(offering: "chorus_plus", trialDays: 7, copy: .staticText("Hear every bird."))
        var metrics = MetricsConfig()
        metrics.maturityGraceDays = 7
        return Experiment(id: "guarded", name: "Guarded", status: .running, start: SimulatedRun.t0, metrics: metrics,
                          variants: [Variant(key: "control", paywall: paywall), Variant(key: "treatment", paywall: paywall)],
                          safeguards: SafeguardsConfig(metrics: [.paidConversion], alpha: 0.05, minUsers: 1, checkMinutes: 15))
    }

    /// Per arm: 2 users exposed 16 days before `now` (mature at 14) and 3 exposed 12 days before
    /// (mature at the old 10, not at 14); one of each age paid.
    static func facts() -> [UserFacts] {
        let nowMicros = Timestamp(now).microseconds
        var rows: [UserFacts] = []
        for arm in ["control", "treatment"] {
            for (i, age) in [16, 16, 12, 12, 12].enumerated() {
                let exposure = nowMicros - Int64(age) * day
                var f = UserFacts(experiment: "guarded", userID: UserID("\(arm)-\(i)"), variant: arm, firstExposure: Timestamp(microseconds: exposure))
                if i == 0 || i == 2 {
                    f.firstPaid = Timestamp(microseconds: exposure + 8 * day)
                    f.firstConverted = f.firstPaid
                }
                rows.append(f)
            }
        }
        return rows.sorted { $0.firstExposure < $1.firstExposure }
    }

    @Test func aSafeguardAndAReportReadTheSameMaturity() throws {
        let e = Self.experiment()
        #expect(e.maturityDays == 14)
        #expect(MatureOutcome(metric: .paidConversion, experiment: e).horizon == 14 * Self.day)

        let findings = try SafeguardEvaluator.evaluate(e, facts: MemoryFacts(rows: Self.facts()), scales: MemorySafeguardScales(), now: Self.now)
        let figures = try #require(findings.first?.figures)
        #expect(figures.controlUsers == 2 && figures.armUsers == 2)
        #expect(figures.controlCount == 1 && figures.armCount == 1)

        var acc = ReportAccumulator(experiment: e, options: ReportOptions(clock: Self.now))
        for f in Self.facts() { acc.add(f) }
        let report = try ReportAnalyzer.analyze(acc)
        #expect(report.maturityDays == 14)
        let mature = try #require(Metric(name: "paid_conversion_d14"))
        #expect(report.variants.map { $0.metric(mature)?.denominator } == [figures.controlUsers, figures.armUsers])
        #expect(report.variants.map { $0.metric(mature)?.count } == [figures.controlCount, figures.armCount])
        #expect(report.matureShares == [0.4, 0.4])
    }
}
