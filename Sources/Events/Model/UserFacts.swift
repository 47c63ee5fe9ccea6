import ExperimentDefinitions
/// One user's outcome in one experiment: the row a report reads.
///
/// Derived from the user's stored events, attributed from the first exposure: events
/// before `firstExposure` are ignored; events at or after it count, whatever experiment
/// they came from. The same events give the same facts whatever order they arrived in.
public struct UserFacts: Sendable, Hashable {
    public var experiment: String
    public var userID: UserID
    /// The variant of the first exposure (ties at one instant broken by the smaller `event_id`).
    public var variant: String
    public var firstExposure: Timestamp
    /// First `trial_started` at or after the first exposure.
    public var trialStart: Timestamp?
    /// The `trial_days` the store granted at `trialStart` (nil when that event did not say).
    public var grantedTrialDays: Int?
    /// First `converted` or `purchased` at or after the first exposure.
    public var firstPaid: Timestamp?
    /// First `converted` (a trial that became paid) at or after the first exposure.
    public var firstConverted: Timestamp?
    /// The first `cancelled` that stood, at or after the first exposure, and at or after the trial
    /// start when the user started a trial (a cancel before the trial began is not a trial cancel).
    /// A cancel that an `uncancelled` followed before the subscription expired was undone: no cancel.
    public var firstCancel: Timestamp?
    /// The first subscription's cancels before `firstCancel` that an `uncancelled` undid in time, each
    /// with when: a report as of a moment between the two reads the cancel.
    public var undoneCancels: [EndSpan]
    /// The ends after the first expiry (a re-subscription's cancels, undone or not, and expiries other
    /// than a pause), in time order: the forecast reads an end after a payer's last payment.
    public var laterEnds: [EndSpan]
    /// The first `expired` (other than a pause, which is no end) from the same moment as `firstCancel`,
    /// and its kind from the expiry's reason.
    public var expiredAt: Timestamp?
    public var expiryKind: SubscriptionEndKind?
    /// The first `billing_issue` at or after the first exposure.
    public var billingIssueAt: Timestamp?
    /// The first `uncancelled` at or after the first exposure, and the first one that followed no
    /// cancel (stored, and changing nothing: the report's health counts them).
    public var firstUncancel: Timestamp?
    public var strayUncancel: Timestamp?
    /// First `refunded` at or after the first exposure.
    public var refundedAt: Timestamp?
    /// Purchases, conversions and renewals minus refunds, at or after the first exposure.
    public var netRevenue: Double
    /// Each revenue event counted in `netRevenue`, by offset from the first exposure, in event order.
    public var revenueEntries: [RevenueEntry]
    /// Exposed to another variant of the same experiment after the first exposure (a crossover);
    /// the user still counts in `variant`.
    public var crossedOver: Bool
    /// `copy_source` of the first exposure.
    public var copySource: CopySource?
    /// `copy_fallback_reason` of the first exposure.
    public var copyFallbackReason: String?
    /// `placement` of the first exposure.
    public var placement: String?
    /// `attributes` of the first exposure: what segments and post-stratification read.
    public var attributes: ExposureAttributes
    /// `allocation_period` of the first exposure (a bandit's): the period the user counts in;
    /// nil when the exposure did not carry it (the period of `firstExposure` is used).
    public var allocationPeriod: Timestamp?

    /// Inlinable so a store's decoding builds the row in place: called once per row of a report's
    /// walk, an outlined call copied the whole struct and destroyed the original.
    @inlinable
    public init(experiment: String, userID: UserID, variant: String, firstExposure: Timestamp,
                trialStart: Timestamp? = nil, firstPaid: Timestamp? = nil, firstConverted: Timestamp? = nil,
                firstCancel: Timestamp? = nil, refundedAt: Timestamp? = nil, netRevenue: Double = 0,
                revenueEntries: [RevenueEntry] = [], crossedOver: Bool = false,
                copySource: CopySource? = nil, copyFallbackReason: String? = nil,
                placement: String? = nil, attributes: ExposureAttributes = .empty, grantedTrialDays: Int? = nil,
                allocationPeriod: Timestamp? = nil, expiredAt: Timestamp? = nil, expiryKind: SubscriptionEndKind? = nil,
                billingIssueAt: Timestamp? = nil, firstUncancel: Timestamp? = nil, strayUncancel: Timestamp? = nil,
                undoneCancels: [EndSpan] = [], laterEnds: [EndSpan] = []) {
        self.experiment = experiment
        self.userID = userID
        self.variant = variant
        self.firstExposure = firstExposure
        self.trialStart = trialStart
        self.firstPaid = firstPaid
        self.firstConverted = firstConverted
        self.firstCancel = firstCancel
        self.refundedAt = refundedAt
        self.netRevenue = netRevenue
        self.revenueEntries = revenueEntries
        self.crossedOver = crossedOver
        self.copySource = copySource
        self.copyFallbackReason = copyFallbackReason
        self.placement = placement
        self.attributes = attributes
        self.grantedTrialDays = grantedTrialDays
        self.allocationPeriod = allocationPeriod
        self.expiredAt = expiredAt
        self.expiryKind = expiryKind
        self.billingIssueAt = billingIssueAt
        self.firstUncancel = firstUncancel
        self.strayUncancel = strayUncancel
        self.undoneCancels = undoneCancels
        self.laterEnds = laterEnds
    }

    /// The user's value of a segment dimension at first exposure: `placement`, or an attribute's label;
    /// nil when the exposure did not carry it (reported as the segment `(none)`).
    public func segmentValue(_ dimension: String) -> String? {
        dimension == "placement" ? placement : attributes[dimension]?.label
    }

    /// Proceeds to date: what the team receives of `netRevenue`, summed from the entries.
    public var netProceeds: Double {
        var sum = 0.0
        for e in revenueEntries { sum += e.proceeds }
        return sum
    }
    /// Some of the proceeds are the revenue less the store's cut: tax is not known for them.
    public var proceedsBeforeTax: Bool { revenueEntries.contains { $0.proceedsBeforeTax } }

    public var startedTrial: Bool { trialStart != nil }
    public var paid: Bool { firstPaid != nil }
    public var converted: Bool { firstConverted != nil }
    public var isRefunded: Bool { refundedAt != nil }

    /// Hours from trial start to the first cancel; nil unless both exist.
    public var hoursFromTrialStartToCancel: Double? {
        guard let trialStart, let firstCancel else { return nil }
        return Double(firstCancel.microseconds - trialStart.microseconds) / 3_600_000_000
    }

    /// A trial starter who cancelled within `windowHours` of the trial start (inclusive) and did not
    /// undo it within them: the `day0_cancel_rate` numerator. Pass the experiment's `metrics.day0_window_hours`.
    public func isDay0Cancel(windowHours: Double = 24) -> Bool {
        guard let start = trialStart?.microseconds else { return false }
        return day0Cancel(trialStart: start, window: Int64(windowHours * 3_600_000_000), before: .max) != nil
    }

    /// A trial starter who cancelled before a trial of `trialDays` days ended and did not undo it
    /// before then (the `trial_cancel_rate` numerator).
    public func cancelledDuringTrial(trialDays: Int) -> Bool {
        guard let start = trialStart?.microseconds else { return false }
        return trialCancel(trialStart: start, length: Int64(trialDays) * 86_400_000_000, before: .max) != nil
    }
}

extension UserFacts: CancelHistory {
    public var standingCancel: Int64? { firstCancel?.microseconds }
}
