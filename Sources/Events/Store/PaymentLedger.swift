/// Payments that store webhooks reported, kept by the vendor's own keys (a Stripe charge or
/// payment intent, a Google Play purchase token), because a later refund names only those:
/// Stripe's `charge.refunded` carries no subscription metadata, and Play's voided purchase
/// carries no amount.
///
/// Keys carry the vendor as a prefix (`stripe:charge:ch_1`), so vendors never collide. Unlike
/// the events, these rows are keyed by the vendor's id, not by the user: a lookup starts from
/// the id alone.
public protocol PaymentLedger: Sendable {
    /// The payment kept under `key`, if any.
    func payment(key: String) throws -> LedgerPayment?

    /// Keeps `payment` under each key (one transaction): user, currency and amount replace what
    /// was there; `refundedMinor` only ever rises (the larger of the stored and the given).
    func remember(_ payment: LedgerPayment, keys: [String]) throws
}

/// One payment: whose, in what currency, how much, and how much of it was refunded so far,
/// in the vendor's own integer unit (Stripe's minor unit, Play's micros).
public struct LedgerPayment: Sendable, Equatable {
    public var userID: UserID
    public var currency: String
    public var amountMinor: Int64
    public var refundedMinor: Int64

    public init(userID: UserID, currency: String, amountMinor: Int64, refundedMinor: Int64 = 0) {
        self.userID = userID
        self.currency = currency
        self.amountMinor = amountMinor
        self.refundedMinor = refundedMinor
    }
}
