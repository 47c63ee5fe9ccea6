import Events
import ExperimentDefinitions

/// One event a store's webhook became, before the server checks and stores it.
public struct MappedEvent: Sendable, Equatable {
    public var eventID: EventID
    public var type: EventType
    public var userID: UserID
    /// Milliseconds since 1970.
    public var timestampMilliseconds: Int64
    public var revenue: Double?
    public var currency: String?
    public var productID: String?
    /// On `trial_started`: the trial the store granted, in days.
    public var trialDays: Int?
    /// Ids the vendor says are this person's (RevenueCat's `aliases`, `original_app_user_id`):
    /// stored with the event as `identified` events.
    public var links: [MappedLink] = []
    /// The store account named no user yet (no exposure carried it), so the token itself is the
    /// user: a payment then counts in `unmatched_store_payments`.
    public var unmatchedStoreAccount = false
    /// The store the notification came from (the event's `store`).
    public var store: PaymentStore?
    /// What the team receives, when the vendor says it (RevenueCat), in `currency`; else nil and the
    /// parser takes the store's cut from `products.json`.
    public var proceeds: Double?
    /// `proceeds` are after the store's cut but tax is not known (RevenueCat without `tax_percentage`).
    public var proceedsBeforeTax: Bool
    /// On `expired`: why access ended, in abctl's words.
    public var reason: ExpiryReason?
    /// On `billing_issue`: the end of the store's grace period, in milliseconds since 1970.
    public var graceUntilMilliseconds: Int64?
    /// On `plan_changed`: the product before the change, and when the new one takes over.
    public var previousProductID: String?
    public var effective: PlanChangeEffect?
    /// Further events the same notification says, stored in the same transaction as this one (a
    /// revocation is a refund and an end; an upgrade is a plan change and its charge). Each has its
    /// own `event_id` (this one's, then `:` and its type).
    public var companions: [MappedEvent] = []

    public init(eventID: EventID, type: EventType, userID: UserID, timestampMilliseconds: Int64, revenue: Double? = nil,
                currency: String? = nil, productID: String? = nil, trialDays: Int? = nil,
                store: PaymentStore? = nil, proceeds: Double? = nil, proceedsBeforeTax: Bool = false, unmatchedStoreAccount: Bool = false,
                reason: ExpiryReason? = nil, graceUntilMilliseconds: Int64? = nil, previousProductID: String? = nil, effective: PlanChangeEffect? = nil) {
        self.eventID = eventID
        self.type = type
        self.userID = userID
        self.timestampMilliseconds = timestampMilliseconds
        self.revenue = revenue
        self.currency = currency
        self.productID = productID
        self.trialDays = trialDays
        self.store = store
        self.proceeds = proceeds
        self.proceedsBeforeTax = proceedsBeforeTax
        self.unmatchedStoreAccount = unmatchedStoreAccount
        self.reason = reason
        self.graceUntilMilliseconds = graceUntilMilliseconds
        self.previousProductID = previousProductID
        self.effective = effective
    }

    /// A further event of the same notification, for the same user at the same time: its id is
    /// this one's with `:` and the type's name, so a retry stores it once too.
    public func companion(_ type: EventType) -> MappedEvent {
        MappedEvent(eventID: EventID(eventID.text + ":" + type.name), type: type, userID: userID,
                    timestampMilliseconds: timestampMilliseconds, productID: productID, store: store,
                    unmatchedStoreAccount: unmatchedStoreAccount)
    }

    /// This event and its companions, in that order.
    public var all: [MappedEvent] { [self] + companions }
}

/// One person, two ids: `user` is `identity`'s (stored as `{"type": "identified", "user_id": user,
/// "identity": identity, "event_id": "identify:IDENTITY"}`, the key `/v1/identify` uses).
public struct MappedLink: Sendable, Equatable {
    public var user: UserID
    public var identity: UserID
    public init(user: UserID, identity: UserID) {
        self.user = user
        self.identity = identity
    }
}

/// What a webhook body became.
public enum WebhookOutcome: Sendable, Equatable {
    /// Only links (RevenueCat's `TRANSFER`), at that time, with the vendor's type.
    case links([MappedLink], timestampMilliseconds: Int64, type: String)
    /// One event to store; then `remember` (if any) to keep in the payment ledger, even when the
    /// event turns out to be a duplicate (a retry after a failed ledger write).
    case event(MappedEvent, remember: LedgerEntry? = nil)
    /// Accepted and counted, nothing stored: a type abctl does not use (`type` names it), or
    /// one that names no user (`noUser`), or a refund already counted.
    case ignored(type: String, reason: IgnoredReason)
}

extension WebhookOutcome {
    /// The outcome with its event marked as coming through `store` (the event's `store`).
    public func through(_ store: PaymentStore) -> WebhookOutcome {
        guard case .event(var event, let remember) = self else { return self }
        event.store = store
        for index in event.companions.indices { event.companions[index].store = store }
        return .event(event, remember: remember)
    }
}

public enum IgnoredReason: String, Sendable, Equatable {
    /// A type (or a status of it) that maps onto no abctl event.
    case type
    /// No user: no `abctl_user_id`, or a refund of a payment abctl never saw.
    case noUser = "no_user"
    /// A refund whose amount was already counted.
    case alreadyCounted = "already_counted"
    /// A purchase token the Play Developer API does not know (404): a retry cannot succeed.
    case unknownToken = "unknown_token"
    /// A notification for another app's package: never this server's to store.
    case otherPackage = "other_package"
    /// A RevenueCat `TRANSFER` from no anonymous id: two known ids never merge.
    case transferBetweenKnownIDs = "transfer_between_known_ids"
}

/// One payment kept under each of its keys, so a later refund finds the user and the amount.
public struct LedgerEntry: Sendable, Equatable {
    public var keys: [String]
    public var payment: LedgerPayment

    public init(keys: [String], payment: LedgerPayment) {
        self.keys = keys
        self.payment = payment
    }
}
