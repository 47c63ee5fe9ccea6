/// Why a subscription's access ended (an `expired` event's `reason`): each store's own words are
/// mapped onto these by the webhooks.
public enum ExpiryReason: String, Sendable, CaseIterable, Hashable {
    /// The person turned auto-renew off and let the period run out.
    case voluntary
    /// The renewal's payment failed and the store gave up.
    case billing
    /// The person did not accept a price increase.
    case priceIncrease = "price_increase"
    /// The product was no longer for sale at renewal.
    case productUnavailable = "product_unavailable"
    /// The person paused the subscription (Google Play).
    case paused
    /// Anything else: a revocation, the developer's cancel, a reason the store did not name.
    case other
}

/// When a `plan_changed` event's new product takes over.
public enum PlanChangeEffect: String, Sendable, CaseIterable, Hashable {
    /// At once (an upgrade, charged now).
    case now
    /// From the next renewal (a downgrade or a crossgrade the store defers).
    case nextRenewal = "next_renewal"
}

/// How a subscription ended, as the report counts its ends: a person's choice, a payment that
/// failed, or anything else.
public enum SubscriptionEndKind: String, Sendable, CaseIterable, Hashable {
    case voluntary, involuntary, other

    /// The kind of an expiry of `reason`; nil for a pause, which is no end.
    public init?(_ reason: ExpiryReason) {
        switch reason {
        case .voluntary: self = .voluntary
        case .billing: self = .involuntary
        case .priceIncrease, .productUnavailable, .other: self = .other
        case .paused: return nil
        }
    }
}
