import ExperimentDefinitions
/// One event as `abctl ingest` reads it, checked: required fields present, `ts` parsed,
/// exposures name an experiment and a variant, revenue finite.
public struct Event: Sendable, Hashable {
    /// The idempotency key: a second event with the same id is a duplicate.
    public var id: EventID
    public var type: EventType
    public var userID: UserID
    public var timestamp: Timestamp
    /// Exposures only.
    public var experiment: String?
    /// Exposures only.
    public var variant: String?
    /// In the currency of `products.json` (converted at parsing when the event named another);
    /// a refund's amount is subtracted whatever its sign.
    public var revenue: Double?
    public var currency: String?
    /// The amount and currency as sent, when the revenue was converted into the report currency.
    public var originalRevenue: Double? {
        get { rare.box?.value.originalRevenue }
        set { rare.value.originalRevenue = newValue }
    }
    public var originalCurrency: String? {
        get { rare.box?.value.originalCurrency }
        set { rare.value.originalCurrency = newValue }
    }
    public var productID: String?
    public var copySource: CopySource?
    public var copyText: String?
    public var copyFallbackReason: String? {
        get { rare.box?.value.copyFallbackReason }
        set { rare.value.copyFallbackReason = newValue }
    }
    /// The placement the paywall was shown in (exposures only).
    public var placement: String?
    /// The attributes the app sent to assign (exposures only); empty when none were sent.
    public var attributes: ExposureAttributes
    /// What the app handed the store for this user (exposures only): the App Store's
    /// `appAccountToken`, Google Play's obfuscated account id. The webhooks map it back to the user.
    public var storeAccountID: String? {
        get { rare.box?.value.storeAccountID }
        set { rare.value.storeAccountID = newValue }
    }
    /// The trial the store actually granted, in days (`trial_started`, filled by the webhooks).
    public var trialDays: Int? {
        get { rare.box?.value.trialDays }
        set { rare.value.trialDays = newValue }
    }
    /// The known id this event's user is (`identified` only): from then on one person.
    public var identity: UserID? {
        get { rare.box?.value.identity }
        set { rare.value.identity = newValue }
    }
    /// The store the payment (or trial, or cancel) went through (the webhooks fill it).
    public var store: PaymentStore? {
        get { rare.box?.value.store }
        set { rare.value.store = newValue }
    }
    /// What the team receives for this payment, in the report currency like `revenue`, with its sign:
    /// as the store said it, or, once parsed, the revenue less the store's cut (`proceedsBeforeTax`).
    /// Nil on events without revenue.
    public var proceeds: Double?
    /// `proceeds` are the revenue less the store's cut from `products.json`: tax is not known.
    public var proceedsBeforeTax: Bool
    /// A bandit's exposure: the `allocation_period` assign answered (the period's start), echoed by
    /// the app; the report and safeguards count the user in that period.
    public var allocationPeriod: Timestamp? {
        get { rare.box?.value.allocationPeriod }
        set { rare.value.allocationPeriod = newValue }
    }

    /// Why access ended (`expired` only, where it is required).
    public var reason: ExpiryReason? {
        get { rare.box?.value.reason }
        set { rare.value.reason = newValue }
    }
    /// Until when the store keeps access open while it retries a failed payment (`billing_issue`).
    public var graceUntil: Timestamp? {
        get { rare.box?.value.graceUntil }
        set { rare.value.graceUntil = newValue }
    }
    /// The product before a `plan_changed` (its `product_id` is the one after).
    public var previousProductID: String? {
        get { rare.box?.value.previousProductID }
        set { rare.value.previousProductID = newValue }
    }
    /// When a `plan_changed`'s new product takes over.
    public var effective: PlanChangeEffect? {
        get { rare.box?.value.effective }
        set { rare.value.effective = newValue }
    }

    /// The fields most events lack, out of line: a bulk load sorts, copies and holds hundreds of
    /// thousands of events, and every inline field made each of them larger (see `RareFields`).
    private var rare: RareFields

    public init(id: EventID, type: EventType, userID: UserID, timestamp: Timestamp,
                experiment: String? = nil, variant: String? = nil,
                revenue: Double? = nil, currency: String? = nil, productID: String? = nil,
                copySource: CopySource? = nil, copyText: String? = nil, copyFallbackReason: String? = nil,
                placement: String? = nil, attributes: ExposureAttributes = .empty,
                originalRevenue: Double? = nil, originalCurrency: String? = nil,
                storeAccountID: String? = nil, trialDays: Int? = nil, identity: UserID? = nil,
                store: PaymentStore? = nil, proceeds: Double? = nil, proceedsBeforeTax: Bool = false,
                allocationPeriod: Timestamp? = nil, reason: ExpiryReason? = nil, graceUntil: Timestamp? = nil,
                previousProductID: String? = nil, effective: PlanChangeEffect? = nil) {
        self.id = id
        self.type = type
        self.userID = userID
        self.timestamp = timestamp
        self.experiment = experiment
        self.variant = variant
        self.revenue = revenue
        self.currency = currency
        self.productID = productID
        self.copySource = copySource
        self.copyText = copyText
        self.placement = placement
        self.attributes = attributes
        self.proceeds = proceeds
        self.proceedsBeforeTax = proceedsBeforeTax
        rare = RareFields(Rare(originalRevenue: originalRevenue, originalCurrency: originalCurrency,
                               copyFallbackReason: copyFallbackReason, storeAccountID: storeAccountID,
                               trialDays: trialDays, identity: identity, store: store, allocationPeriod: allocationPeriod,
                               reason: reason, graceUntil: graceUntil, previousProductID: previousProductID, effective: effective))
    }
}

extension Event {
    /// The out-of-line fields' values.
    struct Rare: Sendable, Hashable {
        var originalRevenue: Double?
        var originalCurrency: String?
        var copyFallbackReason: String?
        var storeAccountID: String?
        var trialDays: Int?
        var identity: UserID?
        var store: PaymentStore?
        var allocationPeriod: Timestamp?
        var reason: ExpiryReason?
        var graceUntil: Timestamp?
        var previousProductID: String?
        var effective: PlanChangeEffect?
    }

    /// `Rare` behind one reference, nil while every field is empty: eight bytes in the event.
    /// The box is never changed in place (a set replaces it), so copies of an event share it safely.
    struct RareFields: Sendable, Hashable {
        final class Box: Sendable {
            let value: Rare
            init(_ value: Rare) { self.value = value }
        }
        private(set) var box: Box?
        private static let empty = Rare()

        init(_ value: Rare) { box = value == Self.empty ? nil : Box(value) }

        var value: Rare {
            get { box?.value ?? Self.empty }
            set { box = newValue == Self.empty ? nil : Box(newValue) }
        }

        static func == (a: RareFields, b: RareFields) -> Bool { a.value == b.value }
        func hash(into hasher: inout Hasher) { hasher.combine(value) }
    }
}
