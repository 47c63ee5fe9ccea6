/// The keys of an event line, in the order every writer of a line puts them: the one
/// declaration of what travels. `declaration` gives each key its value and the types that carry
/// it; the parser's keys, the "keys by type" table, the app-side encoder and the OpenAPI `Event`
/// schema are read from it. What the stores keep of each key (columns, SQL types) is declared
/// beside it in `Events` (`EventColumns`), which this target, shared with the app, cannot see.
public enum EventField: String, CaseIterable, Sendable {
    case eventID = "event_id", type, userID = "user_id", ts, experiment, variant, revenue, currency, productID = "product_id",
         copySource = "copy_source", copyText = "copy_text", copyFallbackReason = "copy_fallback_reason",
         placement, attributes, storeAccountID = "store_account_id", trialDays = "trial_days", identity,
         allocationPeriod = "allocation_period", store, proceeds,
         reason, graceUntil = "grace_until", previousProductID = "previous_product_id", effective

    /// The key as sent.
    public var key: String { rawValue }

    /// One row of the table.
    public struct Declaration: Sendable {
        public var value: Value
        /// The types whose lines may carry the key; nil: every type (the four keys every line has).
        public var carriedBy: [EventType]?
        /// What the key means, for the API's description.
        public var about: String?
        /// The types whose lines must carry the key (the parser refuses one without it, naming it).
        public var requiredBy: [EventType] = []
    }

    /// What a key's value is.
    public enum Value: Sendable, Equatable {
        /// A non-empty string, never null.
        case id
        /// An event type's wire name.
        case eventType
        /// An RFC 3339 time; `required`: never null.
        case time(required: Bool)
        /// A string or null; `nonEmpty`: an empty string is refused.
        case text(nonEmpty: Bool)
        /// One of these strings, or null.
        case choice([String])
        /// A finite number or null.
        case number
        /// A whole number from 0 to `max`, or null.
        case wholeNumber(max: Int)
        /// An object of string, number or boolean members (exposure attributes), or null.
        case attributes
    }

    private static let payments: [EventType] = [.purchased, .converted, .renewed, .refunded]
    /// The subscription's life after the first payment, as the stores tell it.
    private static let subscriptionLife: [EventType] = [.uncancelled, .billingIssue, .expired, .planChanged]
    private static let storeEvents: [EventType] = [.trialStarted] + payments + [.cancelled] + subscriptionLife

    /// The table: each key's value and the types that carry it (which keys each event type
    /// requires or allows; docs/EventStore.md).
    public var declaration: Declaration {
        switch self {
        case .eventID: Declaration(value: .id)
        case .type: Declaration(value: .eventType)
        case .userID: Declaration(value: .id)
        case .ts: Declaration(value: .time(required: true))
        case .experiment: Declaration(value: .text(nonEmpty: false), carriedBy: [.exposure] + Self.storeEvents, requiredBy: [.exposure])
        case .variant: Declaration(value: .text(nonEmpty: false), carriedBy: [.exposure], requiredBy: [.exposure])
        case .revenue: Declaration(value: .number, carriedBy: Self.payments)
        case .currency: Declaration(value: .text(nonEmpty: false), carriedBy: Self.payments)
        case .productID:
            Declaration(value: .text(nonEmpty: false), carriedBy: Self.storeEvents,
                        about: "The store's product; required on plan_changed (the product from then on).", requiredBy: [.planChanged])
        case .copySource: Declaration(value: .choice(CopySource.allCases.map(\.rawValue)), carriedBy: [.exposure])
        case .copyText: Declaration(value: .text(nonEmpty: false), carriedBy: [.exposure])
        case .copyFallbackReason: Declaration(value: .text(nonEmpty: false), carriedBy: [.exposure])
        case .placement:
            Declaration(value: .text(nonEmpty: false), carriedBy: [.exposure], about: "The placement the paywall was shown in (exposures).")
        case .attributes:
            Declaration(value: .attributes, carriedBy: [.exposure],
                        about: "The attributes the app sent to assign (exposures); kept per user from the first exposure for segments. Keys and values at most 256 bytes.")
        case .storeAccountID:
            Declaration(value: .text(nonEmpty: true), carriedBy: [.exposure],
                        about: "Exposures only: what the app handed the App Store (appAccountToken, a UUID) or Google Play (obfuscatedExternalAccountId) for this user; those webhooks map it back to the user. At most 256 bytes.")
        case .trialDays:
            Declaration(value: .wholeNumber(max: 3660), carriedBy: [.trialStarted],
                        about: "trial_started only: the trial the store actually granted, in days (the webhooks fill it).")
        case .identity:
            Declaration(value: .id, carriedBy: [.identified],
                        about: "identified only (required there): the known id this user_id is; from then on they are one person.",
                        requiredBy: [.identified])
        case .allocationPeriod:
            Declaration(value: .time(required: false), carriedBy: [.exposure],
                        about: "A bandit's exposures: the allocation_period assign answered (the period's start), echoed by the app; the report counts the user in that period.")
        case .store:
            Declaration(value: .choice(PaymentStore.allCases.map(\.rawValue)), carriedBy: Self.storeEvents,
                        about: "The store the payment, trial or subscription change went through (the webhooks fill it); not on exposures.")
        case .proceeds:
            Declaration(value: .number, carriedBy: Self.payments,
                        about: "Payments and refunds: what the team receives after the store's cut and tax, in the currency of revenue, with its sign and never larger. Without it, the revenue less the store's cut from products.json stores (before tax).")
        case .reason:
            Declaration(value: .choice(ExpiryReason.allCases.map(\.rawValue)), carriedBy: [.expired],
                        about: "expired only (required there): why access ended.", requiredBy: [.expired])
        case .graceUntil:
            Declaration(value: .time(required: false), carriedBy: [.billingIssue],
                        about: "billing_issue only: until when the store keeps access open while it retries the payment.")
        case .previousProductID:
            Declaration(value: .text(nonEmpty: false), carriedBy: [.planChanged],
                        about: "plan_changed only: the product before the change.")
        case .effective:
            Declaration(value: .choice(PlanChangeEffect.allCases.map(\.rawValue)), carriedBy: [.planChanged],
                        about: "plan_changed only: whether the new product counts from now or from the next renewal.")
        }
    }

    /// Whether a line of `type` may carry this key.
    public func isCarried(by type: EventType) -> Bool {
        declaration.carriedBy?.contains(type) ?? true
    }

    /// Whether a line of `type` must carry this key.
    public func isRequired(by type: EventType) -> Bool {
        declaration.requiredBy.contains(type)
    }

    /// The keys a line of `type` may have, in line order.
    public static func keys(of type: EventType) -> [EventField] {
        allCases.filter { $0.isCarried(by: type) }
    }
}
