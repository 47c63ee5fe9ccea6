import Events
import ExperimentDefinitions
import Foundation
import Testing
@testable import Reporting

/// Hand-checked tallies: every expected number below is worked out in the comments from the rows.
@Suite struct ReportAccumulatorTests {
    typealias F = Fixtures

    static func rows() -> [UserFacts] {
        let s = F.start, h = F.hour, d = F.day
        return [
            // control, trial at +1h, cancel 5 h later: a Day-0 cancel and a cancel inside the 3-day trial.
            UserFacts.row(userID: "u1", variant: "control", firstExposure: s, trialStart: s + h, firstCancel: s + 6 * h),
            // control, trial at day 1 + 1h, converts 3 days later for 59.99.
            UserFacts.row(userID: "u2", variant: "control", firstExposure: s + d, trialStart: s + d + h, firstPaid: s + 4 * d + h,
                      firstConverted: s + 4 * d + h, netRevenue: 59.99),
            // control, no trial, pays 2 h after exposure on day 2.
            UserFacts.row(userID: "u3", variant: "control", firstExposure: s + 2 * d, firstPaid: s + 2 * d + 2 * h, netRevenue: 9.99),
            // ai, trial at exposure, cancel after 48 h: not Day-0 (window 24 h), but inside the 7-day trial.
            UserFacts.row(userID: "u4", variant: "ai", firstExposure: s, trialStart: s, firstCancel: s + 2 * d, copySource: .fallback, fallbackReason: "empty_brief"),
            // ai, exposed at day 9.5, trial an hour later, cancel at day 11: after the as-of time (day 10), so censored.
            UserFacts.row(userID: "u5", variant: "ai", firstExposure: s + 9 * d + 12 * h, trialStart: s + 9 * d + 13 * h, firstCancel: s + 11 * d, copySource: .onDevice),
            // forced QA user: left out.
            UserFacts.row(userID: "qa", variant: "ai", firstExposure: s, firstPaid: s + h, netRevenue: 100),
            // a variant the experiment no longer has.
            UserFacts.row(userID: "u7", variant: "gone", firstExposure: s),
            // ai, exposed a day before the start; pays on day 12, after the as-of time, so not paid.
            UserFacts.row(userID: "u8", variant: "ai", firstExposure: s - d, firstPaid: s + 12 * d, copySource: .onDevice),
        ]
    }

    func accumulate() -> ReportAccumulator {
        let exp = F.experiment(forced: ["qa": "ai"])
        var acc = ReportAccumulator(experiment: exp, options: ReportOptions(clock: F.date(F.start + 10 * F.day)))
        for row in Self.rows() { acc.add(row) }
        return acc
    }

    @Test func countsPerVariant() {
        let acc = accumulate()
        #expect(acc.tallies[0].users == 3 && acc.tallies[1].users == 3)
        func both(_ name: String) -> [Int] { [0, 1].map { acc.tally(.named(name), variant: $0).count } }
        func denominators(_ name: String) -> [Int] { [0, 1].map { acc.tally(.named(name), variant: $0).denominator } }
        #expect(denominators("trial_to_paid") == [2, 2])
        #expect(both("paid_conversion") == [2, 0])
        #expect(both("trial_to_paid") == [1, 0])
        #expect(both("day0_cancel_rate") == [1, 0])
        #expect(both("trial_cancel_rate") == [1, 1])
        #expect(denominators("refund_rate") == [2, 0] && both("refund_rate") == [0, 0])
        let revenue = acc.tally(.revenuePerUser, variant: 0).values
        #expect(revenue == [59.99, 9.99])
        #expect(both("revenue_per_user") == [2, 0])
    }

    /// A batch of rows counts as its rows counted one by one: forced users, unknown variants and all.
    @Test func aBatchCountsAsItsRows() {
        let exp = F.experiment(forced: ["qa": "ai"])
        let options = ReportOptions(clock: F.date(F.start + 10 * F.day))
        var byRow = ReportAccumulator(experiment: exp, options: options), byBatch = byRow
        var batch = FactBatch()
        for row in Self.rows() {
            byRow.add(row)
            batch.append(row)
        }
        byBatch.add(batch)
        #expect(byBatch.forcedUsers == 1 && byBatch.unknownVariants == ["gone": 1])
        #expect(byBatch.tallies == byRow.tallies)
        #expect(byBatch.users == 6 && byBatch.exposedBeforeStart == byRow.exposedBeforeStart)
        #expect(byBatch.forecast.users == byRow.forecast.users)
    }

    @Test func leftOutAndOutsideTheDates() {
        let acc = accumulate()
        #expect(acc.forcedUsers == 1)
        #expect(acc.unknownVariants == ["gone": 1])
        #expect(acc.exposedBeforeStart == 1)
        #expect(acc.exposedAfterEnd == 0)
        #expect(acc.users == 6)
    }

    @Test func survivalObservations() {
        let acc = accumulate()
        // u1: cancel 5 h after trial start; u2: censored at day 10, trial started at day 1 + 1 h → 9 − 1/24 days.
        #expect(acc.tallies[0].survivalCancelled == [true, false])
        #expect(abs(acc.tallies[0].survivalDays[0] - 5.0 / 24) < 1e-12)
        #expect(abs(acc.tallies[0].survivalDays[1] - (9 - 1.0 / 24)) < 1e-12)
        // u4: cancel after 2 days; u5: cancel on day 11 is after the as-of time → censored at 0.5 − 1/24 days.
        #expect(acc.tallies[1].survivalCancelled == [true, false])
        #expect(abs(acc.tallies[1].survivalDays[0] - 2) < 1e-12)
        #expect(abs(acc.tallies[1].survivalDays[1] - (0.5 - 1.0 / 24)) < 1e-12)
    }

    @Test func followUpHistogram() {
        let t = accumulate().tallies[0]
        // Followed days: u1 10, u2 9, u3 8; paid on day: u2 3, u3 0; u1 never (31).
        #expect(t.followUpCount(followed: 10, paidDay: 31) == 1)
        #expect(t.followUpCount(followed: 9, paidDay: 3) == 1)
        #expect(t.followUpCount(followed: 8, paidDay: 0) == 1)
        let total = (0...30).reduce(0) { f, i in f + (0...31).reduce(0) { $0 + t.followUpCount(followed: i, paidDay: $1) } }
        #expect(total == 3)
    }

    @Test func copySources() {
        let ai = accumulate().tallies[1]
        #expect(ai.copySourceUsers == ["fallback": 1, "on_device": 2])
        #expect(ai.fallbackReasons == ["empty_brief": 1])
        #expect(accumulate().tallies[0].copySourceUsers == ["unknown": 3])
    }

    @Test func untilCutsLaterEvents() {
        // As of day 3, u2 (converted on day 4) has not paid yet and its trial is censored at day 3.
        let exp = F.experiment()
        var acc = ReportAccumulator(experiment: exp, options: ReportOptions(clock: F.date(F.start + 20 * F.day), until: F.date(F.start + 3 * F.day)))
        for row in Self.rows().filter({ $0.userID == "u2" }) { acc.add(row) }
        #expect(acc.tally(.paidConversion, variant: 0).count == 0)
        #expect(acc.tally(.revenuePerUser, variant: 0).values == [59.99]) // rows carry revenue as given; the store read cuts it (StoreOracleTests)
        #expect(abs(acc.tallies[0].survivalDays[0] - (2 - 1.0 / 24)) < 1e-12)
    }
}

/// Maturity for Day-0 cancels: a trial starter counts once the Day-0 window (24 h here) has
/// passed by the as-of time; a trial started 2 h before it is not yet countable, one 25 h before is.
@Suite struct Day0CancelMaturityTests {
    typealias F = Fixtures
    static let asOf = F.start + 10 * F.day

    static func rows() -> [UserFacts] {
        let a = asOf, h = F.hour
        return [
            // control, trial 2 h before as-of, cancelled 1 h later: the window is open, so neither counted nor cancelled yet.
            UserFacts.row(userID: "c-2h", variant: "control", firstExposure: a - 3 * h, trialStart: a - 2 * h, firstCancel: a - h),
            // control, trial 25 h before as-of, no cancel: counted, not cancelled.
            UserFacts.row(userID: "c-25h", variant: "control", firstExposure: a - 26 * h, trialStart: a - 25 * h),
            // control, trial 25 h before as-of, cancelled 3 h in: counted, a Day-0 cancel.
            UserFacts.row(userID: "c-25h-cancel", variant: "control", firstExposure: a - 26 * h, trialStart: a - 25 * h, firstCancel: a - 22 * h),
            // control, trial exactly 24 h before as-of: the window has just passed, counted.
            UserFacts.row(userID: "c-24h", variant: "control", firstExposure: a - 25 * h, trialStart: a - 24 * h),
            // ai, trial 2 h before as-of, no cancel: not yet countable.
            UserFacts.row(userID: "a-2h", variant: "ai", firstExposure: a - 2 * h, trialStart: a - 2 * h),
            // ai, trial 25 h before as-of, no cancel: counted.
            UserFacts.row(userID: "a-25h", variant: "ai", firstExposure: a - 25 * h, trialStart: a - 25 * h),
        ]
    }

    func accumulate() -> ReportAccumulator {
        var acc = ReportAccumulator(experiment: F.experiment(), options: ReportOptions(clock: F.date(Self.asOf)))
        for row in Self.rows() { acc.add(row) }
        return acc
    }

    @Test func aTrialStarterEntersOnceTheDay0WindowHasPassed() {
        let acc = accumulate()
        let day0 = [0, 1].map { acc.tally(.day0CancelRate, variant: $0) }
        #expect(day0.map(\.denominator) == [3, 1], "2 h trials are left out, 24 h and 25 h ones counted")
        #expect(day0.map(\.count) == [1, 0], "the 2 h trial's cancel is not counted while its window is open")
        // Other trial-starter metrics still count every trial starter.
        #expect([0, 1].map { acc.tally(.named("trial_to_paid"), variant: $0).denominator } == [4, 2])
        #expect([0, 1].map { acc.tally(.named("trial_start_rate"), variant: $0).count } == [4, 2])
    }

    @Test func theReportAndItsComparisonReadTheMatureTrialStartersOnly() throws {
        let report = try ReportAnalyzer.analyze(accumulate())
        let control = try #require(report.control.metric(.day0CancelRate))
        #expect(control.count == 1 && control.denominator == 3)
        let ai = try #require(report.variants[1].metric(.day0CancelRate))
        #expect(ai.count == 0 && ai.denominator == 1)
    }

    @Test func aDayLaterTheTwoHourTrialsCountToo() {
        // The same rows read 23 h later: every Day-0 window has passed.
        var acc = ReportAccumulator(experiment: F.experiment(), options: ReportOptions(clock: F.date(Self.asOf + 23 * F.hour)))
        for row in Self.rows() { acc.add(row) }
        #expect([0, 1].map { acc.tally(.day0CancelRate, variant: $0).denominator } == [4, 2])
        #expect([0, 1].map { acc.tally(.day0CancelRate, variant: $0).count } == [2, 0])
    }
}
