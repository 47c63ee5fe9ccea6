import Events
import ExperimentDefinitions
import Foundation
import Testing
@testable import Reporting

/// What a person reads matches the figures beside it: cancels during a trial counted in that trial's
/// own days, no p-value or chance to win between two arms with no events, a stratified difference named
/// as such, harm first in the verdict, and one next step that no other line contradicts.
@Suite struct ReportSaysWhatItMeansTests {
    typealias F = Fixtures

    // MARK: Cancels during the trial

    /// A global holdout's arms show no paywall of their own: their users' trials are the ones the
    /// stores granted, and a cancel inside those days is a trial cancel.
    static func holdout() -> Experiment {
        Experiment(id: "holdout", name: "Holdout", status: .running, start: F.date(F.start),
                   metrics: MetricsConfig(primary: .paidConversion, guardrails: [], day0WindowHours: 24, minimumEffect: 0.1, sequential: false),
                   variants: [Variant(key: "holdout", weight: 1, paywall: nil), Variant(key: "general", weight: 1, paywall: nil)],
                   kind: .holdout, fraction: 0.5)
    }

    static func trialRow(_ id: String, _ variant: String, granted: Int?, cancelAfterHours: Int64?, trialStartDay: Int64 = 0) -> UserFacts {
        let s = F.start + trialStartDay * F.day, h = F.hour
        var row = UserFacts.row(userID: UserID(id), variant: variant, firstExposure: s, trialStart: s + h,
                                firstCancel: cancelAfterHours.map { s + h + $0 * h })
        row.grantedTrialDays = granted
        return row
    }

    @Test func trialCancelsCountEachTrialsOwnDaysEvenInArmsWithoutAPaywall() throws {
        var acc = ReportAccumulator(experiment: Self.holdout(), options: ReportOptions(clock: F.date(F.start + 30 * F.day)))
        for row in [
            // holdout: a Day-0 cancel of a 3-day trial (a trial cancel too), a cancel on day 5 of a 7-day trial,
            // a cancel on day 4 of a 3-day trial (after it ended: not a trial cancel), a trial that never cancelled.
            Self.trialRow("h1", "holdout", granted: 3, cancelAfterHours: 5),
            Self.trialRow("h2", "holdout", granted: 7, cancelAfterHours: 5 * 24),
            Self.trialRow("h3", "holdout", granted: 3, cancelAfterHours: 4 * 24),
            Self.trialRow("h4", "holdout", granted: 7, cancelAfterHours: nil),
            // general: one Day-0 cancel of a 7-day trial; one trial whose length nobody said: left out, and counted.
            Self.trialRow("g1", "general", granted: 7, cancelAfterHours: 2),
            Self.trialRow("g2", "general", granted: nil, cancelAfterHours: 3),
        ] { acc.add(row) }
        let trialCancels = try #require(Metric(name: "trial_cancel_rate"))
        #expect(acc.tally(.day0CancelRate, variant: 0).count == 1 && acc.tally(.day0CancelRate, variant: 1).count == 2)
        #expect(acc.tally(trialCancels, variant: 0).count == 2 && acc.tally(trialCancels, variant: 0).denominator == 4)
        #expect(acc.tally(trialCancels, variant: 1).count == 1 && acc.tally(trialCancels, variant: 1).denominator == 1)

        let r = try ReportAnalyzer.analyze(acc)
        let general = try #require(r.variants[1].metric(trialCancels))
        #expect(general.nullReasons["denominator"]?.hasPrefix("1 trial starter left out") == true, "\(general)")
        let json = JSONReportRenderer.render(r)
        #expect(json.contains("\"null_reasons\":{\"denominator\":\"1 trial starter left out"), "\(json)")
        for (format, text) in F.readableFormats(r) {
            #expect(text.contains("1 trial starter left out: how long its trial ran cannot be told"), "\(format)")
        }
    }

    /// An arm that shows no paywall tested no offer: a trial granted elsewhere is no mismatch of it.
    @Test func aHoldoutArmHasNoOfferMismatchFromTheTrialsOfOtherPaywalls() throws {
        var acc = ReportAccumulator(experiment: Self.holdout(), options: ReportOptions(clock: F.date(F.start + 30 * F.day)))
        for i in 0..<50 { acc.add(Self.trialRow("h\(i)", i % 2 == 0 ? "holdout" : "general", granted: 7, cancelAfterHours: nil)) }
        let r = try ReportAnalyzer.analyze(acc)
        #expect(r.offerMismatch.allSatisfy { $0.trialDaysDiffer == 0 }, "\(r.offerMismatch)")
    }

    // MARK: Two arms with no events

    @Test func noPValueOrChanceToWinWhereNeitherArmHasAnEvent() throws {
        var acc = ReportAccumulator(experiment: F.experiment(), options: ReportOptions(clock: F.date(F.start + 30 * F.day)))
        // Trial starters in both arms (of different sizes), none cancelled.
        for i in 0..<40 { acc.add(Self.trialRow("c\(i)", "control", granted: 3, cancelAfterHours: nil)) }
        for i in 0..<400 { acc.add(Self.trialRow("a\(i)", "ai", granted: 7, cancelAfterHours: nil)) }
        let r = try ReportAnalyzer.analyze(acc)
        for metric in [Metric.day0CancelRate, try #require(Metric(name: "trial_cancel_rate"))] {
            let c = try #require(r.comparison("ai", metric))
            #expect(c.absoluteDiff == 0)
            #expect(c.pValue == nil && c.pValueAdjusted == nil && c.chanceToWin == nil && c.expectedLoss == nil, "\(c)")
            for field in ["p_value", "p_value_adjusted", "chance_to_win", "expected_loss"] {
                #expect(c.nullReasons[field]?.hasPrefix("neither arm has") == true, "\(field): \(c.nullReasons)")
            }
        }
        let json = JSONReportRenderer.render(r)
        #expect(json.contains("\"metric\":\"trial_cancel_rate\",\"direction\":\"lower_is_better\",\"absolute_diff\":0,\"absolute_ci\":[0,0],\"relative_lift\":null,\"relative_ci\":null,\"p_value\":null,\"p_value_adjusted\":null,\"chance_to_win\":null,\"expected_loss\":null"), "\(json)")
    }

    // MARK: A stratified difference named as such

    @Test func aStratifiedDifferenceBesidePooledRatesIsNamed() {
        var r = F.report()
        r.sequential = false
        r.allocation = AllocationResult(variants: ["control", "ai"], periods: [], chanceBest: nil, chanceBestNullReason: "test", metric: .paidConversion)
        // Pooled Day-0 cancels 9.99% → 9.99%; the period-stratified difference is +1.73 pp, not clearly beyond chance.
        var day0 = r.comparisons[1]
        day0.absoluteDiff = 0.0173
        day0.pValueAdjusted = 0.8
        day0.adjustment = Adjustment(unadjusted: r.comparisons[1], varianceReduction: 0.1, attributes: ["allocation_period"], strata: 12)
        r.comparisons[1] = day0
        var figures = r.figures
        figures.readComparisons()
        let h = HealthChecks.make(figures, accumulator: ReportAccumulator(experiment: F.experiment(), options: ReportOptions()),
                                  required: SampleRequirement(perVariant: 100, smallestArm: 10_000))
        let line = h.first { $0.code == "guardrail" && $0.message.contains("day-0 cancels") }
        #expect(line?.message.contains("from 9.99% to 9.99% pooled (the period-stratified difference is +1.73 pp)") == true, "\(String(describing: line))")
    }

    // MARK: Harm first

    /// Control and "ai": paid conversion clearly up; Day-0 cancels clearly worse (p = 0.001).
    func harmed(sequential: Bool = false) -> ReportFigures {
        var r = F.report().figures
        r.sequential = sequential
        r.comparisons[0].pValueAdjusted = 0.001
        r.comparisons[1].absoluteDiff = 0.03
        r.comparisons[1].pValueAdjusted = 0.001
        r.readComparisons()
        return r
    }

    @Test func harmComesFirstAndNoArmShipsPastIt() {
        let d = DecisionRule.decide(harmed(), required: SampleRequirement(perVariant: 100, smallestArm: 10_000))
        #expect(d.verdict == .stop && d.winner == nil)
        #expect(d.reasons.first?.hasPrefix("“ai” made day-0 cancels worse: from 9.99% to 9.99% (+3.00 pp), p = 0.0010") == true, "\(d.reasons)")
        #expect(d.reasons.last == "Keep “control” and stop the experiment.")
    }

    /// While the primary is still moving the verdict waits, but a harm already seen on a guardrail (read in
    /// its mature form) comes first, and the step it asks for meanwhile is to turn the arm off.
    @Test func harmIsNotHiddenBehindTooEarly() {
        var r = harmed()
        r.maturityDays = 10
        r.metrics.append(.paidConversion.matureForm(days: 10))
        r.matureShares = [0.3, 0.3]
        let d = DecisionRule.decide(r, required: SampleRequirement(perVariant: 100, smallestArm: 10_000))
        #expect(d.verdict == .keepRunning, "\(d)")
        #expect(d.reasons.first?.hasPrefix("“ai” made day-0 cancels worse") == true, "\(d.reasons)")
        #expect(d.reasons.dropFirst().first?.hasPrefix("Too early: only 30% of") == true, "\(d.reasons)")
        #expect(d.reasons.contains("“ai” hurts a guardrail (above). Consider turning it off."), "\(d.reasons)")
    }

    @Test func aSafeguardMetricsHarmComesFirstToo() throws {
        var r = F.report().figures
        r.sequential = false
        let refunds = try #require(Metric(name: "refund_rate"))
        r.safeguardMetrics = [refunds]
        r.comparisons.append(ComparisonResult(variant: "ai", metric: refunds, absoluteDiff: 0.02, absoluteCI: Bounds(0.01, 0.03), relativeLift: 0.4,
                                              relativeCI: Bounds(0.2, 0.6), pValue: 0.001, pValueAdjusted: 0.001, chanceToWin: 0.01, expectedLoss: 0.02, test: "z-test"))
        r.comparisons[0].pValueAdjusted = 0.001
        r.readComparisons()
        let d = DecisionRule.decide(r, required: SampleRequirement(perVariant: 100, smallestArm: 10_000))
        #expect(d.verdict != .ship, "\(d)")
        #expect(d.reasons.first?.hasPrefix("“ai” made refunds worse") == true, "\(d.reasons)")
    }

    // MARK: One next step

    @Test func aStopOrAnEarlyShipIsNotToldItNeedsMoreUsers() {
        let tooFew = SampleRequirement(perVariant: 31_000, smallestArm: 10_000)
        for (figures, verdict) in [(harmed(), Decision.Verdict.stop), (F.report().figures, .ship)] {
            var r = figures
            r.readComparisons()
            let h = HealthChecks.make(r, accumulator: ReportAccumulator(experiment: F.experiment(), options: ReportOptions()), required: tooFew, verdict: verdict)
            let size = h.first { $0.code == "sample_size" }
            #expect(size?.level == .info, "\(verdict): \(String(describing: size))")
            #expect(size.map { !$0.message.contains("more per variant") && !$0.message.lowercased().contains("too few") } == true, "\(verdict): \(String(describing: size))")
        }
    }

    @Test func noKeepItRunningWhereArrivalsWillNotReachTheSize() {
        var r = F.report().figures
        r.sequential = false
        r.comparisons[0].pValueAdjusted = 0.7
        r.readComparisons()
        var required = SampleRequirement(perVariant: 31_000, smallestArm: 10_000)
        required.unreachable = "at the last 7 days' arrival rate “ai” will not reach the 31,000 users it needs: no user arrived in it in the last 7 days"
        for primaryP in [0.7, 0.001] {
            r.comparisons[0].pValueAdjusted = primaryP
            r.readComparisons()
            let d = DecisionRule.decide(r, required: required)
            #expect(d.verdict == .keepRunning)
            #expect(!d.reasons.contains { $0.lowercased().contains("keep it running") }, "\(d.reasons)")
            #expect(d.reasons.contains { $0.contains("waiting will not get there") }, "\(d.reasons)")
        }
    }

    @Test func tooEarlyNeverSaysOnlyZeroPercent() {
        var r = F.report().figures
        r.sequential = false
        r.maturityDays = 10
        r.metrics.append(.paidConversion.matureForm(days: 10))
        r.readComparisons()
        for (shares, words) in [([0.004, 0.2], "fewer than 1% of “control”'s users"), ([0.0, 0.2], "none of “control”'s users")] {
            r.matureShares = shares
            let d = DecisionRule.decide(r, required: SampleRequirement(perVariant: 100, smallestArm: 10_000))
            #expect(d.reasons.first?.hasPrefix("Too early: \(words)") == true, "\(d.reasons)")
            #expect(!d.reasons.joined().contains(" 0% of"), "\(d.reasons)")
        }
    }
}
