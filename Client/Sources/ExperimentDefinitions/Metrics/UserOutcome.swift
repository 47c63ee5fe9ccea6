/// What one user did inside the window a metric looks at: the facts a metric's numerator and
/// denominator read. Times are microseconds since 1970 (UTC); nil means "did not happen in the window".
public struct UserOutcome: Sendable, Equatable {
    /// A fact a metric can count.
    public enum Fact: Sendable, Equatable {
        case exposure, trialStart, paid, converted, day0Cancel, trialCancel, refund, chargeDue, billingIssue
    }

    public var exposure: Int64
    public var trialStart: Int64?
    /// First `converted` or `purchased`.
    public var paid: Int64?
    /// First `converted` (a trial that became paid).
    public var converted: Int64?
    /// The first cancel, when it came within the Day-0 window of the trial start.
    public var day0Cancel: Int64?
    /// The first cancel, when it came before the trial ended.
    public var trialCancel: Int64?
    /// First `refunded`.
    public var refund: Int64?
    /// When the first charge came due: the first payment, or the end of the trial.
    public var chargeDue: Int64?
    /// First `billing_issue`.
    public var billingIssue: Int64?
    /// Net revenue in the window (capping happens later, over all users).
    public var revenue: Double
    /// Proceeds in the window, capped later as revenue is.
    public var proceeds: Double = 0
    /// Whether the trial start's Day-0 window had passed by the as-of time: until then the user's
    /// Day-0 cancel is still open, and `day0_cancel_rate` leaves the user out (the metric is not
    /// yet mature for them).
    public var day0WindowPassed: Bool = true

    public init(exposure: Int64, trialStart: Int64? = nil, paid: Int64? = nil, converted: Int64? = nil, day0Cancel: Int64? = nil,
                trialCancel: Int64? = nil, refund: Int64? = nil, revenue: Double = 0) {
        self.exposure = exposure
        self.trialStart = trialStart
        self.paid = paid
        self.converted = converted
        self.day0Cancel = day0Cancel
        self.trialCancel = trialCancel
        self.refund = refund
        self.revenue = revenue
    }

    /// When `fact` happened, or nil.
    @inline(__always)
    public func time(_ fact: Fact) -> Int64? {
        switch fact {
        case .exposure: exposure
        case .trialStart: trialStart
        case .paid: paid
        case .converted: converted
        case .day0Cancel: day0Cancel
        case .trialCancel: trialCancel
        case .refund: refund
        case .chargeDue: chargeDue
        case .billingIssue: billingIssue
        }
    }
}
