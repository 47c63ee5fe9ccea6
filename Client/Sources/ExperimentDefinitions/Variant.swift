/// One arm of an experiment: its weight and the paywall it shows.
public struct Variant: Sendable {
    public var key: String
    public var weight: Double
    /// nil: this arm shows no paywall (a holdout arm; assign answers `show_paywall: false`).
    public var paywall: Paywall?

    public init(key: String, weight: Double = 1, paywall: Paywall?) {
        self.key = key
        self.weight = weight
        self.paywall = paywall
    }
}

/// What a variant's paywall shows: the offering, the trial, the discount framing and the copy.
public struct Paywall: Sendable {
    public var offering: String
    /// 0 (no trial) or 1...31.
    public var trialDays: Int
    public var discountFraming: DiscountFraming
    public var highlightedPlan: String?
    public var copy: CopySpec

    public init(offering: String, trialDays: Int, discountFraming: DiscountFraming = .none, highlightedPlan: String? = nil, copy: CopySpec) {
        self.offering = offering
        self.trialDays = trialDays
        self.discountFraming = discountFraming
        self.highlightedPlan = highlightedPlan
        self.copy = copy
    }
}

/// How the price difference between plans is framed; the claim is computed from the prices,
/// never typed by hand (`DiscountClaim`).
public enum DiscountFraming: String, Sendable, CaseIterable {
    case none
    case percentOff = "percent_off"
    case monthsFree = "months_free"
    case perWeek = "per_week"
}
