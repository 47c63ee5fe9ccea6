import ExperimentDefinitions
/// One event of SPEC §4, checked: required fields present, `ts` parsed, exposures name
/// an experiment and a variant, revenue finite.
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
    public var originalRevenue: Double?
    public var originalCurrency: String?
    public var productID: String?
    public var copySource: CopySource?
    public var copyText: String?
    public var copyFallbackReason: String?
    /// The placement the paywall was shown in (exposures; SPEC §4).
    public var placement: String?
    /// The attributes the app sent to assign (exposures; SPEC §4); empty when none were sent.
    public var attributes: ExposureAttributes
    /// What the app handed the store for this user (exposures; SPEC §4): the App Store's
    /// `appAccountToken`, Google Play's obfuscated account id. The webhooks map it back to the user.
    public var storeAccountID: String?
    /// The trial the store actually granted, in days (`trial_started`; SPEC §4, filled by the webhooks).
    public var trialDays: Int?
    /// The known id this event's user is (`identified` only; SPEC §4 people).
    public var identity: UserID?
    /// The store the payment (or trial, or cancel) went through (SPEC §4; the webhooks fill it).
    public var store: PaymentStore?
    /// What the team receives for this payment, in the report currency like `revenue`, with its sign
    /// (SPEC §4): as the store said it, or, once parsed, the revenue less the store's cut
    /// (`proceedsBeforeTax`). Nil on events without revenue.
    public var proceeds: Double?
    /// `proceeds` are the revenue less the store's cut from `products.json`: tax is not known.
    public var proceedsBeforeTax: Bool
    /// A bandit's exposure: the `allocation_period` assign answered (the period's start, SPEC §2), echoed
    /// by the app; the report and safeguards count the user in that period (SPEC §5).
    public var allocationPeriod: Timestamp?

    public init(id: EventID, type: EventType, userID: UserID, timestamp: Timestamp,
                experiment: String? = nil, variant: String? = nil,
                revenue: Double? = nil, currency: String? = nil, productID: String? = nil,
                copySource: CopySource? = nil, copyText: String? = nil, copyFallbackReason: String? = nil,
                placement: String? = nil, attributes: ExposureAttributes = .empty,
                originalRevenue: Double? = nil, originalCurrency: String? = nil,
                storeAccountID: String? = nil, trialDays: Int? = nil, identity: UserID? = nil,
                store: PaymentStore? = nil, proceeds: Double? = nil, proceedsBeforeTax: Bool = false,
                allocationPeriod: Timestamp? = nil) {
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
        self.copyFallbackReason = copyFallbackReason
        self.placement = placement
        self.attributes = attributes
        self.originalRevenue = originalRevenue
        self.originalCurrency = originalCurrency
        self.storeAccountID = storeAccountID
        self.trialDays = trialDays
        self.identity = identity
        self.store = store
        self.proceeds = proceeds
        self.proceedsBeforeTax = proceedsBeforeTax
        self.allocationPeriod = allocationPeriod
    }
}
