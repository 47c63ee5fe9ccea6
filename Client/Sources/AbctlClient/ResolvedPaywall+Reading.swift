import ExperimentDefinitions

/// A paywall read back from the `paywall` object of a `/v1/assign` answer: the inverse of
/// `ResolvedPaywall.json`, used for server answers and for the assignment cache on disk.
struct PaywallReadingError: Error, CustomStringConvertible {
    var description: String
}

extension ResolvedPaywall {
    init(reading json: JSONValue) throws(PaywallReadingError) {
        guard let offering = json["offering"]?.string else { throw PaywallReadingError(description: "paywall.offering is missing") }
        guard let days = json["trial_days"]?.number, days == days.rounded(), days >= 0 else {
            throw PaywallReadingError(description: "paywall.trial_days is missing or not a whole number")
        }
        let framingName = json["discount_framing"]?.string ?? DiscountFraming.none.rawValue
        guard let framing = DiscountFraming(rawValue: framingName) else {
            throw PaywallReadingError(description: "paywall.discount_framing '\(framingName)' is unknown")
        }
        guard let copy = json["copy"] else { throw PaywallReadingError(description: "paywall.copy is missing") }
        // Plans: what the app needs to build the screen without its own price table.
        var plans: [ResolvedPlan] = []
        for plan in json["plans"]?.array ?? [] {
            guard let key = plan["key"]?.string, let productID = plan["product_id"]?.string, let price = plan["price"]?.number,
                  let period = plan["period"]?.string, let currency = plan["currency"]?.string else {
                throw PaywallReadingError(description: "paywall.plans items need key, product_id, price, period and currency")
            }
            plans.append(ResolvedPlan(key: key, productID: productID, price: price, period: period, currency: currency,
                                      highlighted: plan["highlighted"]?.bool ?? false))
        }
        self.init(offering: offering, trialDays: Int(days), discountFraming: framing, discountText: json["discount_text"]?.string,
                  highlightedPlan: json["highlighted_plan"]?.string, plans: plans, copy: try ResolvedCopy(reading: copy))
    }
}

extension ResolvedCopy {
    init(reading json: JSONValue) throws(PaywallReadingError) {
        if let recipe = json["recipe"], !recipe.isNull {
            self = .recipe(try CopyRecipe(reading: recipe))
            return
        }
        guard let text = json["text"]?.string else { throw PaywallReadingError(description: "paywall.copy has neither text nor recipe") }
        let sourceName = json["source"]?.string ?? CopySource.static.rawValue
        guard let source = CopySource(rawValue: sourceName) else {
            throw PaywallReadingError(description: "paywall.copy.source '\(sourceName)' is unknown")
        }
        // A reason this client does not know yet is kept out rather than failing the whole answer.
        let reason = json["fallback_reason"]?.string.flatMap(FallbackReason.init(rawValue:))
        self = .text(text, source: source, fallbackReason: reason)
    }
}

extension CopyRecipe {
    init(reading json: JSONValue) throws(PaywallReadingError) {
        guard let prompt = json["prompt"]?.string, let fallback = json["fallback"]?.string else {
            throw PaywallReadingError(description: "paywall.copy.recipe needs a prompt and a fallback")
        }
        let generation = json["generation"]
        let maxTokens = generation?["max_tokens"]?.number.map { Int($0) }
        self.init(instructions: json["instructions"]?.string ?? "", brief: json["brief"]?.string ?? "", prompt: prompt,
                  temperature: generation?["temperature"]?.number, maxTokens: maxTokens,
                  guardRules: try CopyGuard(reading: json["guard"] ?? .object([])), fallback: fallback)
    }
}

extension CopyGuard {
    init(reading json: JSONValue) throws(PaywallReadingError) {
        func strings(_ key: String) throws(PaywallReadingError) -> [String] {
            guard let value = json[key], !value.isNull else { return [] }
            guard let items = value.array?.compactMap(\.string), items.count == value.array?.count else {
                throw PaywallReadingError(description: "guard.\(key) must be a list of strings")
            }
            return items
        }
        self.init(maxWords: json["max_words"]?.number.map { Int($0) }, forbid: try strings("forbid"), forbidWords: try strings("forbid_words"),
                  mentionOnce: try strings("mention_once"), forbidUserName: json["forbid_user_name"]?.bool ?? false)
    }
}
