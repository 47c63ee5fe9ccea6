import Foundation

/// The price table, `products.json`.
public struct Products: Sendable {
    public struct Plan: Sendable, Equatable {
        public var productID: String
        public var price: Double
        /// ISO 8601 duration: P1W, P1M, P3M, P6M, P1Y.
        public var period: String
        /// `prices`: the store's list price in each storefront currency but the report currency's (`{"JPY": 1500}`).
        public var prices: [String: Double]

        public init(productID: String, price: Double, period: String, prices: [String: Double] = [:]) {
            self.productID = productID
            self.price = price
            self.period = period
            self.prices = prices
        }

        /// The list price in `currency`: `price` in the report currency, else `prices[currency]`.
        public func price(in currency: String, default reportCurrency: String) -> Double? {
            currency == reportCurrency ? price : prices[currency]
        }
    }

    /// The report currency: prices, and every stored revenue amount once converted.
    public var currency: String
    /// Offering key → plan key → plan.
    public var offerings: [String: [String: Plan]]
    /// `exchange_rates`: currency code → what one unit of it is worth in `currency` (`{"EUR": 1.08}`).
    public var exchangeRates: [String: Double]
    /// `stores`: each store's cut of a payment, for proceeds the store did not report.
    public var stores: StoreFees

    /// `storefronts`: ISO 3166 country → ISO 4217 currency (`{"JP": "JPY"}`); a country with no
    /// entry is the default storefront, priced in `currency`.
    public var storefronts: [String: String]

    public init(currency: String, offerings: [String: [String: Plan]], exchangeRates: [String: Double] = [:],
                storefronts: [String: String] = [:], stores: StoreFees = .standard) {
        self.currency = currency
        self.offerings = offerings
        self.exchangeRates = exchangeRates
        self.storefronts = storefronts
        self.stores = stores
    }

    /// The currency of the storefront a `country` attribute names; the report currency for no
    /// country or one with no entry.
    public func storefrontCurrency(country: String?) -> String {
        country.flatMap(Self.storefrontKey).flatMap { storefronts[$0] } ?? currency
    }

    /// A `country` attribute as a `storefronts` key: two ASCII letters, in capitals (`jp` is JP);
    /// anything else names no storefront. Compared by bytes, as targeting compares attributes: a
    /// Kelvin sign (U+212A) is not a K here, though Swift's `==` would call them equal.
    public static func storefrontKey(_ country: String) -> String? {
        var bytes: [UInt8] = []
        for b in country.utf8 {
            guard bytes.count < 2, (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) else { return nil }
            bytes.append(b & 0xDF)
        }
        return bytes.count == 2 ? String(decoding: bytes, as: UTF8.self) : nil
    }

    /// Every currency a paywall is resolved in: the report currency (the default storefront)
    /// first, then the storefronts' others, sorted.
    public var storefrontCurrencies: [String] {
        [currency] + Set(storefronts.values).subtracting([currency]).sorted()
    }

    /// The countries whose storefront is priced in `currency`, sorted (none for the default storefront's own).
    public func countries(pricedIn currency: String) -> [String] {
        storefronts.filter { $0.value == currency }.map(\.key).sorted()
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

    /// The discount line computed from prices, never typed by hand (`DiscountClaim`), in the
    /// storefront priced in `storefrontCurrency` (nil: the default storefront); nil for `.none`.
    public func discountText(_ framing: DiscountFraming, offering: String, in storefrontCurrency: String? = nil) throws(DiscountProblem) -> String? {
        if framing == .none { return nil }
        guard let plans = offerings[offering] else { throw .unknownOffering(offering) }
        let currency = storefrontCurrency ?? self.currency
        func price(_ period: String) -> Decimal? {
            plans.values.first { $0.period == period }?.price(in: currency, default: self.currency).map(DiscountClaim.decimal)
        }
        do {
            return try DiscountClaim.text(framing, monthly: price("P1M"), annual: price("P1Y"), currency: currency)
        } catch {
            switch error {
            case .needsMonthlyAndAnnual: throw .needsMonthlyAndAnnual(offering)
            case .claimNotPositive(let claim): throw .claimNotPositive(claim)
            }
        }
    }

    /// Formats an amount in the currency (`DiscountClaim.format`: `$1.15`, `¥1,500`, `CHF 9.90`).
    public static func format(_ amount: Double, currency: String) -> String {
        DiscountClaim.format(amount, currency: currency)
    }
}
