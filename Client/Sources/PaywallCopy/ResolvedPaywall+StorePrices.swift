import ExperimentDefinitions
import Foundation

extension ResolvedPaywall {
    /// This paywall at the prices the store itself reports on the device (StoreKit's
    /// `Product.price`, a `Decimal`, by product id, in the storefront's `currency`): each plan the
    /// store priced takes that price, and `discountText` is recomputed from them by the server's
    /// own rule (`DiscountClaim`), so the claim shown is the one true at the price shown.
    ///
    /// The claim is recomputed only when the store priced every plan it reads (monthly and annual;
    /// the annual for `per_week`); otherwise the server's text stays. A claim that would be zero or
    /// less at the store's prices is dropped (`discountText` nil) rather than shown untrue.
    public func pricedByStore(_ prices: [String: Decimal], currency: String) -> ResolvedPaywall {
        var out = self
        out.plans = plans.map { plan in
            guard let price = prices[plan.productID] else { return plan }
            var priced = plan
            // Through its decimal text: the nearest Double to 49.99 is the one JSON's 49.99 reads as.
            priced.price = Double(price.description) ?? NSDecimalNumber(decimal: price).doubleValue
            priced.currency = currency
            return priced
        }
        func storePrice(_ period: String) -> Decimal? {
            plans.first { $0.period == period }.flatMap { prices[$0.productID] }
        }
        let monthly = storePrice("P1M"), annual = storePrice("P1Y")
        let needsMonthly = discountFraming == .percentOff || discountFraming == .monthsFree
        guard discountFraming != .none, annual != nil, monthly != nil || !needsMonthly else { return out }
        out.discountText = try? DiscountClaim.text(discountFraming, monthly: monthly, annual: annual, currency: currency)
        return out
    }
}
