import Foundation

/// The price table, `products.json` (SPEC §1).
public struct Products: Sendable {
    public struct Plan: Sendable, Equatable {
        public var productID: String
        public var price: Double
        /// ISO 8601 duration: P1W, P1M, P3M, P6M, P1Y.
        public var period: String

        public init(productID: String, price: Double, period: String) {
            self.productID = productID
            self.price = price
            self.period = period
        }
    }

    /// The report currency: prices, and every stored revenue amount once converted.
    public var currency: String
    /// Offering key → plan key → plan.
    public var offerings: [String: [String: Plan]]
    /// `exchange_rates`: currency code → what one unit of it is worth in `currency` (`{"EUR": 1.08}`).
    public var exchangeRates: [String: Double]
    /// `stores`: each store's cut of a payment, for proceeds the store did not report (SPEC §1, §5).
    public var stores: StoreFees

    public init(currency: String, offerings: [String: [String: Plan]], exchangeRates: [String: Double] = [:], stores: StoreFees = .standard) {
        self.currency = currency
        self.offerings = offerings
        self.exchangeRates = exchangeRates
        self.stores = stores
    }

    /// Converts revenue into the report currency with these rates.
    public var converter: CurrencyConverter { CurrencyConverter(currency: currency, rates: exchangeRates) }

    /// Why a framing cannot be shown for an offering.
    public enum DiscountProblem: Error, Sendable, Equatable, CustomStringConvertible {
        case unknownOffering(String)
        case needsMonthlyAndAnnual(String)
        case claimNotPositive(String)

        public var description: String {
            switch self {
            case .unknownOffering(let o): "unknown offering '\(o)'"
            case .needsMonthlyAndAnnual(let o): "offering '\(o)' needs a monthly (P1M) and an annual (P1Y) plan to compute a discount"
            case .claimNotPositive(let claim): "the computed claim \"\(claim)\" is not a discount"
            }
        }
    }

    /// The discount line computed from prices, never typed by hand; nil for `.none`.
    ///
    /// `percent_off`: `Save N%`, N = floor(100 × (1 − annual / (12 × monthly)));
    /// `months_free`: `N months free`, N = floor(12 − annual / monthly);
    /// `per_week`: the annual price / 52 in the currency, e.g. `$1.15/week`.
    public func discountText(_ framing: DiscountFraming, offering: String) throws(DiscountProblem) -> String? {
        if framing == .none { return nil }
        guard let plans = offerings[offering] else { throw .unknownOffering(offering) }
        let monthly = plans.values.first { $0.period == "P1M" }
        let annual = plans.values.first { $0.period == "P1Y" }
        // A tiny epsilon keeps exact ratios (e.g. 60 / 120 = 0.5) from flooring one below.
        let epsilon = 1e-9
        switch framing {
        case .none:
            return nil
        case .percentOff:
            guard let monthly, let annual else { throw .needsMonthlyAndAnnual(offering) }
            let n = Int(floor(100 * (1 - annual.price / (12 * monthly.price)) + epsilon))
            guard n > 0 else { throw .claimNotPositive("Save \(n)%") }
            return "Save \(n)%"
        case .monthsFree:
            guard let monthly, let annual else { throw .needsMonthlyAndAnnual(offering) }
            let n = Int(floor(12 - annual.price / monthly.price + epsilon))
            guard n > 0 else { throw .claimNotPositive("\(n) months free") }
            return n == 1 ? "1 month free" : "\(n) months free"
        case .perWeek:
            guard let annual else { throw .needsMonthlyAndAnnual(offering) }
            let weekly = annual.price / 52
            let text = Self.format(weekly, currency: currency) + "/week"
            guard (weekly * 100).rounded() > 0 else { throw .claimNotPositive(text) }
            return text
        }
    }

    /// Formats an amount with two decimals and the currency's symbol ($, €, £, ¥) or its code.
    public static func format(_ amount: Double, currency: String) -> String {
        let cents = Int64((amount * 100).rounded())
        let number = "\(cents / 100).\(String(format: "%02lld", cents % 100))"
        switch currency {
        case "USD", "AUD", "CAD", "NZD": return "$" + number
        case "EUR": return "€" + number
        case "GBP": return "£" + number
        case "JPY": return "¥" + number
        default: return "\(currency) \(number)"
        }
    }
}
