/// `storefronts` (country to currency) and each plan's `prices` (the store's list price in each
/// storefront currency).
extension ProductsDecoder {
    /// The storefronts read, with where each currency was named (for messages about what it lacks).
    struct Storefronts {
        var currencies: [String: String] = [:]
        /// Storefront currency (not the report currency) → its countries, sorted.
        var countriesByCurrency: [String: [String]] = [:]
    }

    /// One plan's `prices` as read, for the check that every storefront currency has one.
    struct PlanPrices {
        var what: String
        var at: SourcePosition
        var prices: [String: Double]
        var named: Set<String>
    }

    /// `storefronts`: ISO 3166 alpha-2 country → ISO 4217 currency, each with a rate in
    /// `exchange_rates` unless it is the report currency.
    func storefronts(_ r: ObjectReader, currency: String, rates: [String: Double]) -> Storefronts {
        var out = Storefronts()
        guard let node = r.node("storefronts") else { return out }
        guard case .object(let members) = node.kind else {
            sink.error("wrong_type", at: node.position, "'storefronts' must be an object, not \(node.typeName)", hint: "e.g. {\"JP\": \"JPY\", \"DE\": \"EUR\"}: country → currency")
            return out
        }
        for m in members {
            guard m.key.utf8.count == 2, m.key.utf8.allSatisfy({ $0 >= 0x41 && $0 <= 0x5A }) else {
                sink.error("bad_country", at: m.keyPosition, "'\(m.key)' in storefronts is not an ISO 3166 country code", hint: "two capital letters, e.g. \"JP\"")
                continue
            }
            guard case .string(let code) = m.value.kind else {
                sink.error("wrong_type", at: m.value.position, "the currency of storefront \(m.key) must be a string, not \(m.value.typeName)", hint: "an ISO 4217 code, e.g. \"JPY\"")
                continue
            }
            guard let known = knownCurrency(code, at: m.value.position, what: "the currency of storefront \(m.key)") else { continue }
            if known != currency && rates[known] == nil {
                sink.error("missing_exchange_rate", at: m.value.position, "storefront \(m.key) is priced in \(known), which has no rate in exchange_rates",
                           hint: "add \"\(known)\" to exchange_rates: what one \(known) is worth in \(currency)")
            }
            out.currencies[m.key] = known
            if known != currency { out.countriesByCurrency[known, default: []].append(m.key) }
        }
        for key in out.countriesByCurrency.keys { out.countriesByCurrency[key]?.sort() }
        return out
    }

    /// A plan's `prices`: ISO 4217 currency → a positive list price in it.
    func prices(_ node: JSONNode, plan: String, currency: String) -> [String: Double] {
        guard case .object(let members) = node.kind else {
            sink.error("wrong_type", at: node.position, "'prices' of plan '\(plan)' must be an object, not \(node.typeName)", hint: "e.g. {\"JPY\": 1500, \"EUR\": 10.99}")
            return [:]
        }
        var prices: [String: Double] = [:]
        for m in members {
            guard let code = knownCurrency(m.key, at: m.keyPosition, what: "'\(m.key)' in the prices of plan '\(plan)'") else { continue }
            guard code != currency else {
                sink.error("bad_price", at: m.keyPosition, "plan '\(plan)' is priced in \(code), the report currency, by 'price'", hint: "remove it from 'prices'")
                continue
            }
            guard case .number(let price) = m.value.kind, price.isFinite, price > 0 else {
                let text = if case .number(let n) = m.value.kind { ExperimentDecoder.format(n) } else { m.value.typeName }
                sink.error("bad_price", at: m.value.position, "the \(code) price of plan '\(plan)' must be a positive number, not \(text)", hint: "the store's list price in \(code), e.g. 1500")
                continue
            }
            prices[code] = price
        }
        return prices
    }

    /// Every storefront currency needs a price in every plan; a price no storefront uses is named too.
    /// `named`: the currencies a plan's `prices` names, a bad price included (it was reported as such).
    func checkStorefrontPrices(_ storefronts: Storefronts, planPrices: [PlanPrices]) {
        for plan in planPrices {
            for (code, countries) in storefronts.countriesByCurrency.sorted(by: { $0.key < $1.key }) where !plan.named.contains(code) {
                let which = countries.count == 1 ? "storefront \(countries[0]) needs" : "storefronts \(countries.joined(separator: ", ")) need"
                sink.error("missing_price", at: plan.at, "\(plan.what) has no \(code) price, which \(which)",
                           hint: "add \"prices\": {\"\(code)\": …}, the store's list price in \(code)")
            }
            for code in plan.prices.keys.sorted() where storefronts.countriesByCurrency[code] == nil {
                sink.warning("unused_price", at: plan.at, "\(plan.what) has a \(code) price but no storefront is priced in \(code)",
                             hint: "add a storefront, e.g. \"storefronts\": {\"XX\": \"\(code)\"}, or remove the price")
            }
        }
    }

    /// `code` when it is an ISO 4217 currency; otherwise reports it (with the nearest code) and gives nil.
    func knownCurrency(_ code: String, at position: SourcePosition, what: String) -> String? {
        if DiscountClaim.isCurrency(code) { return code }
        let upper = code.uppercased()
        // Swapped letters (JYP for JPY) first, then the nearest spelling.
        let sameLetters = DiscountClaim.iso4217.sorted().first { upper != $0 && upper.sorted() == $0.sorted() }
        let guess = DiscountClaim.isCurrency(upper) ? upper : sameLetters ?? Spelling.closest(to: upper, in: DiscountClaim.iso4217.sorted())
        sink.error("unknown_currency", at: position, "\(what), '\(code)', is not an ISO 4217 currency",
                   hint: guess.map { "did you mean '\($0)'?" } ?? "e.g. \"JPY\", \"EUR\"")
        return nil
    }
}
