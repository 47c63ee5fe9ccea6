import ExperimentDefinitions

/// One arm's discount claim in each storefront (docs/Reports.md, "Storefronts"), for an arm whose
/// claim is not the same in all of them: the report names each where they differ (in
/// `offer_mismatch`, the health notes and beside each country of `--by country`), since the arm
/// showed each storefront its own claim.
public struct StorefrontClaims: Sendable, Equatable {
    public struct Claim: Sendable, Equatable {
        /// The storefront's countries, sorted; empty for the default storefront.
        public var countries: [String]
        public var currency: String
        public var text: String
    }

    public var variant: String
    public var framing: DiscountFraming
    /// The default storefront's first, then by currency.
    public var claims: [Claim]
    /// Country → the storefront's claim (the default's for a country with no storefront).
    public var byCountry: [String: String]
    public var defaultText: String

    /// The claim a user from `country` was shown.
    public func claim(country: String) -> String {
        Products.storefrontKey(country).flatMap { byCountry[$0] } ?? defaultText
    }

    /// The arms of `experiment` whose claim differs between storefronts, in variant order.
    static func differing(_ experiment: Experiment, products: Products?) -> [StorefrontClaims] {
        guard let products, !products.storefronts.isEmpty else { return [] }
        return experiment.variants.compactMap { variant in
            guard let paywall = variant.paywall, paywall.discountFraming != .none else { return nil }
            var claims: [Claim] = []
            for currency in products.storefrontCurrencies {
                guard let text = try? products.discountText(paywall.discountFraming, offering: paywall.offering, in: currency) else { continue }
                claims.append(Claim(countries: currency == products.currency ? [] : products.countries(pricedIn: currency), currency: currency, text: text))
            }
            guard let first = claims.first, claims.contains(where: { $0.text != first.text }) else { return nil }
            var byCountry: [String: String] = [:]
            for claim in claims { for c in claim.countries { byCountry[c] = claim.text } }
            return StorefrontClaims(variant: variant.key, framing: paywall.discountFraming, claims: claims, byCountry: byCountry, defaultText: first.text)
        }
    }

    /// The storefront country a `--by` cell names: a `country` cell's value, never the pooled `other`.
    static func country(_ d: SegmentDimension, _ cell: SegmentDimension.Cell) -> String? {
        d.dimension == "country" && cell.value != Segments.otherValue ? cell.value : nil
    }

    /// Beside a country of `--by country`, a comparison of `variant` with `control`: the claims its
    /// users saw in that country's storefront, the variant's then the control's named
    /// (`5 months free; percent: Save 45%`), for the arms whose claim differs between storefronts;
    /// nil when neither's does. Every format writes these words (the CSV's `discount_text`).
    static func beside(_ all: [StorefrontClaims], country: String, variant: String, control: String) -> String? {
        let own = all.first { $0.variant == variant }?.claim(country: country)
        let theirs = all.first { $0.variant == control }.map { "\(control): \($0.claim(country: country))" }
        let parts = [own, theirs].compactMap { $0 }
        return parts.isEmpty ? nil : parts.joined(separator: "; ")
    }

    /// A country cell's `discount_text` in the JSON: each arm whose claim differs between storefronts →
    /// its claim in that country's storefront; nil when no arm's differs.
    static func json(_ all: [StorefrontClaims], country: String) -> JSONValue? {
        all.isEmpty ? nil : .object(all.map { ($0.variant, .string($0.claim(country: country))) })
    }

    /// `Save 49% in the default storefront (USD), Save 46% in DE, FR (EUR), Save 45% in JP (JPY)`.
    var sentence: String {
        claims.map { c in "\(c.text) in " + (c.countries.isEmpty ? "the default storefront (\(c.currency))" : "\(c.countries.joined(separator: ", ")) (\(c.currency))") }
            .joined(separator: ", ")
    }

    /// `{"default": "Save 49%", "DE": "Save 46%", …}`: the claim per storefront country.
    var json: JSONValue {
        .object([("default", .string(defaultText))] + byCountry.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })
    }
}
