import EventStore

/// One user's facts in one experiment, as the report reads them: the plain input of `Reporting`.
///
/// Times are microseconds since 1970 (UTC), the store's unit. A row says what happened
/// from the user's first exposure on; nil means "has not happened (yet)".
public struct ReportRow: Sendable, Hashable {
    public var userID: String
    public var variant: String
    public var firstExposure: Int64
    public var trialStart: Int64?
    /// First `converted` or `purchased`.
    public var firstPaid: Int64?
    /// First `converted` (a trial that became paid).
    public var firstConverted: Int64?
    /// First cancel at or after the trial start.
    public var firstCancel: Int64?
    /// First `refunded`.
    public var refunded: Int64?
    /// Purchases, conversions and renewals minus refunds.
    public var netRevenue: Double
    /// Each revenue event by offset from the first exposure, for revenue inside a horizon.
    public var revenueEntries: [RevenueEntry]
    /// Exposed to another variant of the experiment after the first exposure (counted in `variant`).
    public var crossedOver: Bool
    /// `copy_source` of the first exposure (`static`, `template`, `on_device`, `server`, `fallback`).
    public var copySource: String?
    public var fallbackReason: String?

    public init(userID: String, variant: String, firstExposure: Int64, trialStart: Int64? = nil, firstPaid: Int64? = nil,
                firstConverted: Int64? = nil, firstCancel: Int64? = nil, refunded: Int64? = nil, netRevenue: Double = 0,
                revenueEntries: [RevenueEntry] = [], crossedOver: Bool = false, copySource: String? = nil, fallbackReason: String? = nil) {
        self.userID = userID
        self.variant = variant
        self.firstExposure = firstExposure
        self.trialStart = trialStart
        self.firstPaid = firstPaid
        self.firstConverted = firstConverted
        self.firstCancel = firstCancel
        self.refunded = refunded
        self.netRevenue = netRevenue
        self.revenueEntries = revenueEntries
        self.crossedOver = crossedOver
        self.copySource = copySource
        self.fallbackReason = fallbackReason
    }
}
