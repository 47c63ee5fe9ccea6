/// Converts revenue into the report currency: the one place every path that stores
/// revenue (`abctl ingest`, `POST /v1/events`, each webhook) converts it.
///
/// An amount with no currency, or in the report currency, is kept as it is; another currency
/// needs a rate in `products.json`'s `exchange_rates`.
public struct CurrencyConverter: Sendable, Equatable {
    /// The report currency.
    public var currency: String
    /// Currency code → what one unit of it is worth in `currency`.
    public var rates: [String: Double]

    public init(currency: String, rates: [String: Double] = [:]) {
        self.currency = currency
        self.rates = rates
    }

    public struct NoRate: Error, Sendable, Equatable, CustomStringConvertible {
        public var from: String
        public var to: String
        public var description: String {
            "no exchange rate from \(from) to \(to); add \"\(from)\" to exchange_rates in products.json, or send the amount in \(to)"
        }
    }

    /// `amount` in the report currency, or `NoRate` for a currency without a rate.
    /// Codes are compared in capitals (Stripe writes `eur`).
    public func convert(_ amount: Double, from code: String?) throws(NoRate) -> Double {
        guard let code = code?.uppercased(), code != currency else { return amount }
        guard let rate = rates[code] else { throw NoRate(from: code, to: currency) }
        return amount * rate
    }
}
