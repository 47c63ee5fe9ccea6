/// A products.json with storefronts (docs/Reports.md, "Storefronts") and the claims each framing makes in
/// each, computed by hand with exact fractions (floor for the claims, half up for money):
///   USD  9.99 / 59.99:    1 − 59.99/119.88 = 0.4996 → 49%; 12 − 6.005 = 5.995 → 5;  59.99/52 = 1.1537 → $1.15
///   EUR 10.99 / 69.99:    1 − 69.99/131.88 = 0.4693 → 46%; 12 − 6.369 = 5.63 → 5;   69.99/52 = 1.3460 → €1.35
///   JPY  1500 / 9800:     1 − 9800/18000   = 0.4556 → 45%; 12 − 6.533 = 5.47 → 5;   9800/52  = 188.46 → ¥188
///   GBP  8.99 / 49.99:    1 − 49.99/107.88 = 0.5366 → 53%; 12 − 5.561 = 6.44 → 6;   49.99/52 = 0.9613 → £0.96
///   KRW 14000 / 99000:    1 − 99000/168000 = 0.4107 → 41%; 12 − 7.071 = 4.93 → 4;   99000/52 = 1903.8 → ₩1,904
/// CA maps to USD, the report currency: the default storefront's prices.
public enum StorefrontFixture {
    public static let productsJSON = """
    {
      "currency": "USD",
      "exchange_rates": { "EUR": 1.08, "GBP": 1.27, "JPY": 0.0067, "KRW": 0.00075 },
      "storefronts": { "JP": "JPY", "DE": "EUR", "FR": "EUR", "GB": "GBP", "KR": "KRW", "CA": "USD" },
      "offerings": {
        "chorus_plus": {
          "plans": {
            "monthly": { "product_id": "chorus.plus.monthly", "price": 9.99, "period": "P1M",
                         "prices": { "EUR": 10.99, "JPY": 1500, "GBP": 8.99, "KRW": 14000 } },
            "annual": { "product_id": "chorus.plus.annual", "price": 59.99, "period": "P1Y",
                        "prices": { "EUR": 69.99, "JPY": 9800, "GBP": 49.99, "KRW": 99000 } }
          }
        }
      }
    }

    """

    /// Country (nil: none sent) → the storefront's currency.
    public static let currencyOf: [String?: String] = [nil: "USD", "US": "USD", "BR": "USD", "CA": "USD", "JP": "JPY", "jp": "JPY",
                                                        "DE": "EUR", "FR": "EUR", "GB": "GBP", "KR": "KRW"]
    /// Currency → [monthly, annual] list prices.
    public static let prices: [String: [Double]] = ["USD": [9.99, 59.99], "EUR": [10.99, 69.99], "JPY": [1500, 9800],
                                                    "GBP": [8.99, 49.99], "KRW": [14000, 99000]]
    /// Currency → framing → the claim.
    public static let claims: [String: [String: String]] = [
        "USD": ["percent_off": "Save 49%", "months_free": "5 months free", "per_week": "$1.15/week"],
        "EUR": ["percent_off": "Save 46%", "months_free": "5 months free", "per_week": "€1.35/week"],
        "JPY": ["percent_off": "Save 45%", "months_free": "5 months free", "per_week": "¥188/week"],
        "GBP": ["percent_off": "Save 53%", "months_free": "6 months free", "per_week": "£0.96/week"],
        "KRW": ["percent_off": "Save 41%", "months_free": "4 months free", "per_week": "₩1,904/week"],
    ]
}
