import Events
import ExperimentDefinitions

/// Fixed-horizon outcomes for safeguards: a user enters a metric once mature, with
/// the value at that age, so no user's value changes between two evaluations and looking every
/// `check_minutes` keeps the always-valid guarantee.
///
/// | metric | enters (unit) | at | counts when |
/// | --- | --- | --- | --- |
/// | `trial_start_rate`, `paid_conversion` | exposed users | exposure + H | it happened before exposure + H |
/// | `trial_to_paid` | trial starters before exposure + H | exposure + H | converted before exposure + H |
/// | `day0_cancel_rate` | trial starters | trial start + `day0_window_hours` | a cancel within the window not undone within it |
/// | `trial_cancel_rate` | trial starters whose trial length is known | the end of their own trial | a cancel before it not undone before it |
/// | `refund_rate` | payers | first payment + H + 14 days | refunded before then |
/// | `billing_issue_rate` | users whose first charge came due | that due date + 16 days | a billing issue before then |
///
/// H is `Experiment.maturityDays` (the longest `trial_days` plus `metrics.maturity_grace_days`),
/// the same maturity the report reads. A trial's own length is the store's grant where the trial start
/// said, else the arm's (`TrialLength.own`, as the report reads it).
struct MatureOutcome: Sendable {
    static let microsPerDay: Int64 = 86_400_000_000
    /// Refunds are counted this long after the first payment, beyond H.
    static let refundExtraDays = 14
    /// Billing issues are counted this long after the first charge came due (a store retries a failed
    /// charge for about that long before it gives up).
    static let billingIssueDays = 16

    let fact: UserOutcome.Fact
    /// H in microseconds.
    let horizon: Int64
    let day0Window: Int64
    /// Per arm, its trial length in microseconds (0 for an arm that offers none).
    let trialLengths: [Int64]

    init(metric: Metric, experiment: Experiment) {
        guard case .proportion(let numerator) = metric.definition.statistic else { preconditionFailure("safeguards watch rates only") }
        fact = numerator
        horizon = Int64(experiment.maturityDays) * Self.microsPerDay
        day0Window = Int64(experiment.metrics.day0WindowHours * 3_600_000_000)
        trialLengths = experiment.variants.map { Int64($0.paywall?.trialDays ?? 0) * Self.microsPerDay }
    }

    /// nil while the user is not (yet) in the metric's denominator at `now`; else whether the
    /// user counts in the numerator.
    @inline(__always)
    func value(_ f: FactTimes, arm: Int, now: Int64) -> Bool? {
        let exposure = f.firstExposure
        let horizonEnd = exposure + horizon
        switch fact {
        case .trialStart, .paid:
            guard horizonEnd <= now else { return nil }
            let t = fact == .trialStart ? f.trialStart : f.firstPaid
            return t.map { $0 < horizonEnd } ?? false
        case .converted:
            guard horizonEnd <= now, let start = f.trialStart, start < horizonEnd else { return nil }
            return f.firstConverted.map { $0 < horizonEnd } ?? false
        case .day0Cancel:
            guard let start = f.trialStart, start + day0Window <= now else { return nil }
            return f.day0Cancel(trialStart: start, window: day0Window, before: .max) != nil
        case .trialCancel:
            let length = TrialLength.own(grantedDays: f.grantedTrialDays, armLength: trialLengths[arm])
            guard let start = f.trialStart, length > 0, start + length <= now else { return nil }
            return f.trialCancel(trialStart: start, length: length, before: .max) != nil
        case .refund:
            guard let paid = f.firstPaid else { return nil }
            let end = paid + horizon + Int64(Self.refundExtraDays) * Self.microsPerDay
            guard end <= now else { return nil }
            return f.refundedAt.map { $0 >= paid && $0 < end } ?? false
        case .billingIssue:
            let trialEnd = f.trialStart.map { $0 + TrialLength.own(grantedDays: f.grantedTrialDays, armLength: trialLengths[arm]) }
            guard let due = [f.firstPaid, trialEnd].compactMap({ $0 }).min() else { return nil }
            let end = due + Int64(Self.billingIssueDays) * Self.microsPerDay
            guard end <= now else { return nil }
            return f.billingIssue.map { $0 < end } ?? false
        case .exposure, .chargeDue:
            return nil
        }
    }
}
