import ExperimentDefinitions

/// What a report reads of one user's facts row, whether a whole `UserFacts` or a row of a
/// `FactBatch`: times in microseconds since 1970, nil when the row has none. The report's counting is
/// written once against this, so a walk by batches and a walk by rows count alike.
public protocol FactRow: CancelHistory {
    associatedtype RevenueEntries: Collection<RevenueEntry>
    var userID: UserID { get }
    var firstExposureMicros: Int64 { get }
    var trialStartMicros: Int64? { get }
    var firstPaidMicros: Int64? { get }
    var firstConvertedMicros: Int64? { get }
    var refundedMicros: Int64? { get }
    var billingIssueMicros: Int64? { get }
    var firstUncancelMicros: Int64? { get }
    var strayUncancelMicros: Int64? { get }
    var expiredMicros: Int64? { get }
    var allocationPeriodMicros: Int64? { get }
    var expiryKind: SubscriptionEndKind? { get }
    var grantedTrialDays: Int? { get }
    var netRevenue: Double { get }
    var crossedOver: Bool { get }
    var copySource: CopySource? { get }
    var copyFallbackReason: String? { get }
    /// Each revenue event counted in `netRevenue`, by offset from the first exposure, in event order.
    var revenueEntries: RevenueEntries { get }
    var laterEnds: [EndSpan] { get }
    /// The user's value of a segment dimension at first exposure (`UserFacts.segmentValue`).
    func segmentValue(_ dimension: String) -> String?
}

extension FactRow {
    /// The subscription's end as of `limit` (µs, exclusive): the earlier of the cancel that stood then
    /// and the first expiry before it. Its kind is the expiry's when there is one by then, else
    /// voluntary (a cancel).
    @inlinable
    public func end(before limit: Int64) -> (at: Int64, kind: SubscriptionEndKind)? {
        let cancel = cancel(before: limit)
        let expiry = expiredMicros.flatMap { $0 < limit ? $0 : nil }
        switch (cancel, expiry) {
        case let (c?, e?): return (min(c, e), expiryKind ?? .other)
        case let (c?, nil): return (c, .voluntary)
        case let (nil, e?): return (e, expiryKind ?? .other)
        case (nil, nil): return nil
        }
    }

    /// Whether an end stood as of `limit` (µs, exclusive) at or after `from`: the first subscription's
    /// end, or a re-subscription's (the forecast's churn after a payer's last payment).
    @inlinable
    public func hasEnd(from: Int64, before limit: Int64) -> Bool {
        if let end = end(before: limit), end.at >= from { return true }
        return laterEnds.contains { $0.at >= from && $0.stands(before: limit) }
    }

    /// When the user's first charge came due: the first payment, or the end of a trial of
    /// `trialDays` (the store's grant when it said, else the arm's), whichever came first.
    @inlinable
    public func firstChargeDue(armTrialDays: Int) -> Int64? {
        let trialEnd = trialStartMicros.map { $0 + TrialLength.own(grantedDays: grantedTrialDays, armLength: Int64(armTrialDays) * 86_400_000_000) }
        switch (firstPaidMicros, trialEnd) {
        case let (p?, t?): return min(p, t)
        case let (p?, nil): return p
        case let (nil, t?): return t
        case (nil, nil): return nil
        }
    }
}

extension UserFacts: FactRow {
    @inlinable public var firstExposureMicros: Int64 { firstExposure.microseconds }
    @inlinable public var trialStartMicros: Int64? { trialStart?.microseconds }
    @inlinable public var firstPaidMicros: Int64? { firstPaid?.microseconds }
    @inlinable public var firstConvertedMicros: Int64? { firstConverted?.microseconds }
    @inlinable public var refundedMicros: Int64? { refundedAt?.microseconds }
    @inlinable public var billingIssueMicros: Int64? { billingIssueAt?.microseconds }
    @inlinable public var firstUncancelMicros: Int64? { firstUncancel?.microseconds }
    @inlinable public var strayUncancelMicros: Int64? { strayUncancel?.microseconds }
    @inlinable public var expiredMicros: Int64? { expiredAt?.microseconds }
    @inlinable public var allocationPeriodMicros: Int64? { allocationPeriod?.microseconds }
}
