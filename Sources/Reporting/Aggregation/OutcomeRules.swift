import Events
import ExperimentDefinitions

/// What a user's outcome in a window is worked out from besides the facts row: the Day-0 window and
/// each arm's trial. Kept apart from `ReportAccumulator` so working one out from a mutating method reads
/// these few values; a method of the accumulator itself copied the whole accumulator there, per row.
struct OutcomeRules: Sendable {
    let day0Window: Int64
    /// Each arm's trial (µs) and `trial_days` (for the offer check).
    let trialLength: [Int64]
    let armTrialDays: [Int]

    init(_ experiment: Experiment) {
        day0Window = Int64((experiment.metrics.day0WindowHours * 3_600_000_000).rounded())
        trialLength = experiment.variants.map { Int64($0.paywall?.trialDays ?? 0) * ReportAccumulator.microsPerDay }
        armTrialDays = experiment.variants.map { $0.paywall?.trialDays ?? 0 }
    }

    /// What `row`'s user did before `limit` (exclusive), with `revenue` its net revenue in that window; a
    /// Day-0 window has passed when it ends before `windowsPassedBy` (default `limit`).
    @inline(__always)
    func outcome<Row: FactRow>(_ row: Row, variant v: Int, before limit: Int64, windowsPassedBy: Int64? = nil, revenue: Double) -> UserOutcome {
        func within(_ t: Int64?) -> Int64? {
            guard let t, t < limit else { return nil }
            return t
        }
        var o = UserOutcome(exposure: row.firstExposureMicros, trialStart: within(row.trialStartMicros), paid: within(row.firstPaidMicros),
                            converted: within(row.firstConvertedMicros), refund: within(row.refundedMicros), revenue: revenue)
        if let trialStart = o.trialStart {
            // Day-0 cancels are read among trial starters whose window has passed: by the as-of time,
            // or for a `_dN` metric by the end of the user's first N days, so no window is cut short.
            o.day0WindowPassed = trialStart + day0Window < (windowsPassedBy ?? limit)
        }
        let ownTrial = ownTrial(row, variant: v)
        // A billing issue counts among users whose first charge came due by then.
        if let due = row.firstChargeDue(armTrialDays: armTrialDays[v]), due < limit {
            o.chargeDue = due
            o.billingIssue = within(row.billingIssueMicros)
        }
        // Each cancel rate reads the cancel as it stood at its window's end (or at `limit`, if sooner).
        if let trialStart = o.trialStart, row.standingCancel != nil || !row.undoneCancels.isEmpty {
            o.day0Cancel = row.day0Cancel(trialStart: trialStart, window: day0Window, before: limit)
            o.trialCancel = row.trialCancel(trialStart: trialStart, length: ownTrial, before: limit)
        }
        return o
    }

    /// The length of the user's own trial (µs): the days the store granted where the trial start says,
    /// else the arm's; 0 when neither tells (an arm that offers no trial, a holdout's, cannot say how long
    /// a trial started elsewhere ran).
    @inline(__always)
    func ownTrial<Row: FactRow>(_ row: Row, variant v: Int) -> Int64 {
        TrialLength.own(grantedDays: row.grantedTrialDays, armLength: trialLength[v])
    }
}
