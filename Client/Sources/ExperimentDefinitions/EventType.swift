/// The event types, one vocabulary for the parser, the stores, the webhooks, the
/// app-side client and the OpenAPI document. The raw value is the stored integer code; `name` is the wire name.
public enum EventType: Int, Sendable, CaseIterable, CustomStringConvertible {
    case exposure = 1
    case trialStarted = 2
    case purchased = 3
    case converted = 4
    case renewed = 5
    case cancelled = 6
    case refunded = 7
    /// Links the event's user id to a known id (`identity`): one person.
    case identified = 8
    /// Auto-renew turned back on before the period ended: the cancel before it is undone.
    case uncancelled = 9
    /// A renewal's payment failed; access may go on in the store's grace period (`grace_until`).
    case billingIssue = 10
    /// Access ended, for the `reason` the store gave.
    case expired = 11
    /// Another product (`product_id`) from now or from the next renewal (`effective`).
    case planChanged = 12

    /// The spelling in NDJSON.
    public var name: String {
        switch self {
        case .exposure: "exposure"
        case .trialStarted: "trial_started"
        case .purchased: "purchased"
        case .converted: "converted"
        case .renewed: "renewed"
        case .cancelled: "cancelled"
        case .refunded: "refunded"
        case .identified: "identified"
        case .uncancelled: "uncancelled"
        case .billingIssue: "billing_issue"
        case .expired: "expired"
        case .planChanged: "plan_changed"
        }
    }

    public init?(name: String) {
        guard let match = EventType.allCases.first(where: { $0.name == name }) else { return nil }
        self = match
    }

    public var description: String { name }

    /// Types whose `revenue` counts toward net revenue (refunds subtract).
    /// What an event of this type with `revenue` adds to net revenue: the amount for payments,
    /// minus its magnitude for refunds (whatever sign the sender used), nothing otherwise.
    public func revenueContribution(_ revenue: Double?) -> Double {
        guard carriesRevenue, let revenue else { return 0 }
        return self == .refunded ? -abs(revenue) : revenue
    }

    public var carriesRevenue: Bool {
        switch self {
        case .purchased, .converted, .renewed, .refunded: true
        default: false
        }
    }
}
