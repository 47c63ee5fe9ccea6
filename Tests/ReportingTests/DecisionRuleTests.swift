import Events
import ExperimentDefinitions
import Foundation
import Testing
@testable import Reporting

/// The verdict rule, case by case, on hand-made reports (the numbers only need to be on the right side of alpha).
@Suite struct DecisionRuleTests {
    /// Control and "ai"; paid conversion up with adjusted p `primaryP`, Day-0 cancels changed by `day0Diff` with p `day0P`.
    func report(primaryDiff: Double = 0.006, primaryP: Double = 0.01, day0Diff: Double = -0.002, day0P: Double = 0.6,
                sequential: Bool = false, srmFlagged: Bool = false) -> ReportFigures {
        var r = Fixtures.report().figures
        r.sequential = sequential
        r.srm.flagged = srmFlagged
        r.srm.pValue = srmFlagged ? 0.00001 : 0.4
        r.comparisons = [
            ComparisonResult(variant: "ai", metric: .paidConversion, absoluteDiff: primaryDiff, absoluteCI: Bounds(primaryDiff - 0.004, primaryDiff + 0.004),
                             relativeLift: primaryDiff / 0.035, relativeCI: Bounds(0.01, 0.3), pValue: primaryP, pValueAdjusted: primaryP,
                             chanceToWin: 0.99, expectedLoss: 0.0001, sequentialPValue: primaryP,
                             sequentialCI: Bounds(primaryDiff - 0.005, primaryDiff + 0.005), test: "z-test"),
            ComparisonResult(variant: "ai", metric: .day0CancelRate, absoluteDiff: day0Diff, absoluteCI: Bounds(day0Diff - 0.01, day0Diff + 0.01),
                             relativeLift: day0Diff / 0.1, relativeCI: nil, pValue: day0P, pValueAdjusted: day0P, chanceToWin: 0.3, expectedLoss: 0.001,
                             sequentialPValue: day0P, test: "z-test"),
        ]
        return r
    }

    /// The verdict as the analysis makes it: each comparison read first (the tests change figures after building them).
    func decide(_ r: ReportFigures, required: SampleRequirement) -> Decision {
        var r = r
        r.readComparisons()
        return DecisionRule.decide(r, required: required)
    }

    let enough = SampleRequirement(perVariant: 5_000, smallestArm: 10_000)
    let tooFew = SampleRequirement(perVariant: 31_000, smallestArm: 10_000)

    @Test func shipsAClearWinnerWithHealthyGuardrails() {
        let d = decide(report(), required: enough)
        #expect(d.verdict == .ship)
        #expect(d.winner == "ai")
        #expect(d.reasons[0].contains("turns more users into paying subscribers"))
        #expect(d.reasons.contains { $0.hasPrefix("No guardrail clearly got worse") })
    }

    @Test func anEarlyWinOnAFixedSizeTestKeepsRunning() {
        let d = decide(report(), required: tooFew)
        #expect(d.verdict == .keepRunning)
        #expect(d.reasons[0].contains("21,000 more per variant"))
    }

    @Test func sequentialTestsMayShipEarly() {
        let d = decide(report(sequential: true), required: tooFew)
        #expect(d.verdict == .ship)
    }

    @Test func aWorseDay0CancelRateBlocksTheWinnerAndStops() {
        let d = decide(report(day0Diff: 0.03, day0P: 0.001), required: enough)
        #expect(d.verdict == .stop)
        #expect(d.reasons[0].hasPrefix("“ai” made day-0 cancels worse"))
    }

    @Test func aClearlyWorsePrimaryStops() {
        let d = decide(report(primaryDiff: -0.006, primaryP: 0.001), required: enough)
        #expect(d.verdict == .stop)
        #expect(d.reasons.last == "Keep “control” and stop the experiment.")
    }

    @Test func sampleRatioMismatchIsInconclusive() {
        let d = decide(report(srmFlagged: true), required: enough)
        #expect(d.verdict == .inconclusive)
        #expect(d.reasons[0].contains("sample ratio mismatch"))
    }

    @Test func noDifferenceAtFullSizeIsInconclusive() {
        let d = decide(report(primaryDiff: 0.0005, primaryP: 0.7), required: enough)
        #expect(d.verdict == .inconclusive)
        #expect(d.reasons[0].hasPrefix("Each variant has the 5,000 users needed"))
    }

    @Test func noDifferenceYetKeepsRunning() {
        let d = decide(report(primaryDiff: 0.0005, primaryP: 0.7), required: tooFew)
        #expect(d.verdict == .keepRunning)
        #expect(d.reasons.last!.contains("about 21,000 more per variant"))
    }

    @Test func noUsersKeepsRunning() {
        var r = report()
        r.variants[1].users = 0
        #expect(decide(r, required: enough).verdict == .keepRunning)
    }

    @Test func aSequentialIntervalThatContradictsTodayDoesNotCount() {
        // Early looks saw the variant far behind (a longer trial converts later); today it is ahead.
        var r = report(sequential: true)
        r.comparisons[0].sequentialCI = Bounds(-0.03, -0.019)
        let d = decide(r, required: tooFew)
        #expect(d.verdict == .keepRunning)
        r.readComparisons()
        let h = HealthChecks.make(r, accumulator: ReportAccumulator(experiment: Fixtures.experiment(), options: ReportOptions()), required: tooFew)
        #expect(h.contains { $0.code == "sequential" && $0.message.contains("no longer contains today's difference") })
    }

    @Test func guardrailsAlwaysStartWithDay0() {
        var r = report()
        r.guardrails = [.named("trial_cancel_rate"), .day0CancelRate]
        #expect(DecisionRule.guardrails(r) == [.day0CancelRate, .named("trial_cancel_rate")])
        r.primaryMetric = .day0CancelRate
        #expect(DecisionRule.guardrails(r) == [.named("trial_cancel_rate")])
    }
}

@Suite struct HealthCheckTests {
    func checks(_ r: Report, _ required: SampleRequirement, forced: [UserID: String] = [:], rows: [UserFacts] = []) -> [HealthCheck] {
        var acc = ReportAccumulator(experiment: Fixtures.experiment(forced: forced), options: ReportOptions(clock: Fixtures.date(Fixtures.start + 30 * Fixtures.day)))
        for row in rows { acc.add(row) }
        var figures = r.figures
        figures.readComparisons()
        return HealthChecks.make(figures, accumulator: acc, required: required)
    }

    @Test func srmComesFirstInPlainWords() {
        var r = Fixtures.report()
        r.srm = SRMResult(pValue: 0.00001, flagged: true, expectedShares: [0.5, 0.5])
        let h = checks(r, SampleRequirement(perVariant: 100, smallestArm: 10_000))
        #expect(h[0].level == .alert && h[0].code == "srm")
        #expect(h[0].message.contains("“control” 50.0% (planned 50.0%)"))
    }

    @Test func tooFewUsersSaysHowManyMore() {
        let h = checks(Fixtures.report(), SampleRequirement(perVariant: 31_000, smallestArm: 10_000))
        let size = try! #require(h.first { $0.code == "sample_size" })
        #expect(size.level == .warning)
        #expect(size.message == "Too few users to spot a 10% change in paid conversion: each variant needs about 31,000, the smallest has 10,000, so about 21,000 more per variant (42,000 in total).")
    }

    @Test func worseDay0CancelsAreAnAlert() {
        var r = Fixtures.report()
        r.sequential = false
        r.comparisons[1].absoluteDiff = 0.02
        r.comparisons[1].pValueAdjusted = 0.001
        let h = checks(r, SampleRequirement(perVariant: 100, smallestArm: 10_000))
        let g = try! #require(h.first { $0.code == "guardrail" })
        #expect(g.level == .alert)
        #expect(g.message.hasPrefix("“ai” made day-0 cancels worse"))
    }

    @Test func forcedUsersAndEarlyExposuresAreReported() {
        let rows = [UserFacts.row(userID: "qa", variant: "ai", firstExposure: Fixtures.start),
                    UserFacts.row(userID: "early", variant: "control", firstExposure: Fixtures.start - Fixtures.day)]
        let h = checks(Fixtures.report(), SampleRequirement(perVariant: 100, smallestArm: 10_000), forced: ["qa": "ai"], rows: rows)
        #expect(h.contains { $0.code == "forced_users" && $0.message == "1 forced QA user was left out." })
        #expect(h.contains { $0.code == "dates" && $0.message.hasPrefix("1 user was first exposed before the experiment started (2026-12-01T00:00:00Z)") })
    }
}
