/// The store a payment went through (a revenue event's `store`).
public enum PaymentStore: String, Sendable, CaseIterable, Hashable {
    case appStore = "app_store", googlePlay = "google_play", stripe, other
}

/// Each store's cut of a payment, `products.json` `stores`: what proceeds are when the
/// store did not say them. Defaults: 30% for the App Store and Google Play, 2.9% + 0.30 (in the
/// report currency) for Stripe.
public struct StoreFees: Sendable, Equatable {
    public var appStoreCommission: Double
    public var googlePlayCommission: Double
    public var stripePercent: Double
    /// In the report currency.
    public var stripeFixed: Double

    public init(appStoreCommission: Double = 0.30, googlePlayCommission: Double = 0.30, stripePercent: Double = 0.029, stripeFixed: Double = 0.30) {
        self.appStoreCommission = appStoreCommission
        self.googlePlayCommission = googlePlayCommission
        self.stripePercent = stripePercent
        self.stripeFixed = stripeFixed
    }

    public static let standard = StoreFees()

    /// What the team keeps of `revenue` (report currency) through `store`, tax not known: the
    /// revenue less the store's cut; `other` or no store takes no cut. A payment keeps at least nothing
    /// (a Stripe fee larger than a tiny payment). A refund (negative revenue) pays back the same share,
    /// except through Stripe, which keeps its fee: the whole amount refunded.
    public func proceeds(of revenue: Double, store: PaymentStore?) -> Double {
        switch store {
        case .appStore?: return revenue * (1 - appStoreCommission)
        case .googlePlay?: return revenue * (1 - googlePlayCommission)
        case .stripe?: return revenue < 0 ? revenue : max(0, revenue * (1 - stripePercent) - stripeFixed)
        case .other?, nil: return revenue
        }
    }
}
