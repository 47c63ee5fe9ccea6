/// Reads `products.json`, reporting every problem to a `DiagnosticSink`.
struct ProductsDecoder {
    let sink: DiagnosticSink
    static let periods: Set<String> = ["P1W", "P1M", "P2M", "P3M", "P6M", "P1Y"]

    func decode(_ root: JSONNode) -> Products? {
        guard let r = ObjectReader(root, what: "products.json", allowed: ["$schema", "currency", "offerings", "exchange_rates", "storefronts", "stores"], required: ["currency", "offerings"], sink: sink)
        else { return nil }
        let currency = r.string("currency") ?? "USD"
        if r.has("currency") && !(currency.count == 3 && currency.allSatisfy { $0.isASCII && $0.isUppercase }) {
            sink.error("bad_currency", at: r.position("currency"), "currency '\(currency)' is not an ISO 4217 code", hint: "e.g. \"USD\"")
        }
        let rates = exchangeRates(r, currency: currency)
        let storefronts = storefronts(r, currency: currency, rates: rates)
        var planPrices: [PlanPrices] = []
        var offerings: [String: [String: Products.Plan]] = [:]
        guard let node = r.node("offerings") else { return nil }
        guard case .object(let members) = node.kind else {
            sink.error("wrong_type", at: node.position, "'offerings' must be an object, not \(node.typeName)")
            return nil
        }
        for offering in members {
            guard let or = ObjectReader(offering.value, what: "offering '\(offering.key)'", allowed: ["plans"], required: ["plans"], sink: sink),
                  let plansNode = or.node("plans") else { continue }
            guard case .object(let planMembers) = plansNode.kind else {
                sink.error("wrong_type", at: plansNode.position, "'plans' must be an object, not \(plansNode.typeName)")
                continue
            }
            var plans: [String: Products.Plan] = [:]
            for plan in planMembers {
                guard let pr = ObjectReader(plan.value, what: "plan '\(plan.key)'", allowed: ["product_id", "price", "period", "prices"], required: ["product_id", "price", "period"], sink: sink)
                else { continue }
                let productID = pr.string("product_id") ?? ""
                let price = pr.number("price") ?? 0
                if pr.has("price") && !(price > 0) {
                    sink.error("bad_price", at: pr.position("price"), "price of plan '\(plan.key)' must be positive, not \(ExperimentDecoder.format(price))", hint: "prices are in \(currency), e.g. 9.99")
                }
                let period = pr.string("period") ?? ""
                if pr.has("period") && !Self.periods.contains(period) {
                    sink.error("bad_period", at: pr.position("period"), "period '\(period)' is not supported", hint: "use one of: \(Self.periods.sorted().joined(separator: ", "))")
                }
                let prices = pr.node("prices").map { self.prices($0, plan: plan.key, currency: currency) } ?? [:]
                let named: [String] = if case .object(let m)? = pr.node("prices")?.kind { m.map(\.key) } else { [] }
                planPrices.append(PlanPrices(what: "plan '\(plan.key)' of offering '\(offering.key)'", at: pr.node("prices")?.position ?? plan.keyPosition,
                                             prices: prices, named: Set(named)))
                plans[plan.key] = Products.Plan(productID: productID, price: price, period: period, prices: prices)
            }
            offerings[offering.key] = plans
        }
        checkStorefrontPrices(storefronts, planPrices: planPrices)
        return Products(currency: currency, offerings: offerings, exchangeRates: rates, storefronts: storefronts.currencies,
                        stores: stores(r, currency: currency))
    }

    /// `stores`: `{"app_store": {"commission"}, "google_play": {"commission"}, "stripe": {"percent", "fixed"}}`,
    /// each part optional; a share is from 0 to 1, Stripe's fixed fee (report currency) not negative.
    func stores(_ r: ObjectReader, currency: String) -> StoreFees {
        var fees = StoreFees.standard
        guard let node = r.node("stores"),
              let sr = ObjectReader(node, what: "stores", allowed: ["app_store", "google_play", "stripe"], sink: sink) else { return fees }
        func share(_ reader: ObjectReader, _ key: String, store: String) -> Double? {
            guard let value = reader.number(key) else { return nil }
            guard value.isFinite, value >= 0, value < 1 else {
                sink.error("bad_store_fee", at: reader.position(key), "'\(key)' of \(store) must be a share from 0 to 1, not \(ExperimentDecoder.format(value))", hint: "e.g. 0.15 for 15%")
                return nil
            }
            return value
        }
        if let n = sr.node("app_store"), let a = ObjectReader(n, what: "stores.app_store", allowed: ["commission"], sink: sink) {
            fees.appStoreCommission = share(a, "commission", store: "app_store") ?? fees.appStoreCommission
        }
        if let n = sr.node("google_play"), let g = ObjectReader(n, what: "stores.google_play", allowed: ["commission"], sink: sink) {
            fees.googlePlayCommission = share(g, "commission", store: "google_play") ?? fees.googlePlayCommission
        }
        if let n = sr.node("stripe"), let s = ObjectReader(n, what: "stores.stripe", allowed: ["percent", "fixed"], sink: sink) {
            fees.stripePercent = share(s, "percent", store: "stripe") ?? fees.stripePercent
            if let fixed = s.number("fixed") {
                if fixed.isFinite, fixed >= 0 { fees.stripeFixed = fixed } else {
                    sink.error("bad_store_fee", at: s.position("fixed"), "'fixed' of stripe must not be negative, not \(ExperimentDecoder.format(fixed))", hint: "in \(currency), e.g. 0.30")
                }
            }
        }
        return fees
    }

    /// `exchange_rates`: ISO 4217 code → a positive number, what one unit is worth in the report currency.
    func exchangeRates(_ r: ObjectReader, currency: String) -> [String: Double] {
        guard let node = r.node("exchange_rates") else { return [:] }
        guard case .object(let members) = node.kind else {
            sink.error("wrong_type", at: node.position, "'exchange_rates' must be an object, not \(node.typeName)", hint: "e.g. {\"EUR\": 1.08}: one EUR is worth 1.08 \(currency)")
            return [:]
        }
        var rates: [String: Double] = [:]
        for m in members {
            guard m.key.count == 3, m.key.allSatisfy({ $0.isASCII && $0.isUppercase }) else {
                sink.error("bad_currency", at: m.keyPosition, "'\(m.key)' in exchange_rates is not an ISO 4217 code", hint: "e.g. \"EUR\"")
                continue
            }
            guard m.key != currency else {
                sink.error("bad_exchange_rate", at: m.keyPosition, "'\(m.key)' is the report currency; it needs no rate", hint: "remove it")
                continue
            }
            guard case .number(let rate) = m.value.kind else {
                sink.error("wrong_type", at: m.value.position, "the rate of \(m.key) must be a number, not \(m.value.typeName)",
                           hint: "what one \(m.key) is worth in \(currency), e.g. 1.08")
                continue
            }
            guard rate.isFinite, rate > 0 else {
                sink.error("bad_exchange_rate", at: m.value.position, "the rate of \(m.key) must be positive, not \(ExperimentDecoder.format(rate))",
                           hint: "what one \(m.key) is worth in \(currency), e.g. 1.08")
                continue
            }
            rates[m.key] = rate
        }
        return rates
    }
}
