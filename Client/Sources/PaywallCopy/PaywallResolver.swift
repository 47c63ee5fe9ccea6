import ExperimentDefinitions
import Foundation

/// Turns a variant's paywall definition into what one request gets back (`/v1/assign`).
public enum PaywallResolver {
    /// `currency`: the storefront's (`Products.storefrontCurrency(country:)`); nil is the default
    /// storefront, priced in the report currency.
    public static func resolve(_ paywall: Paywall, products: Products, request: PaywallRequest, currency: String? = nil) -> ResolvedPaywall {
        // Validation guarantees the framing can be computed in every storefront; a failure here means an unvalidated snapshot.
        let discount = try? products.discountText(paywall.discountFraming, offering: paywall.offering, in: currency)
        return ResolvedPaywall(
            offering: paywall.offering, trialDays: paywall.trialDays, discountFraming: paywall.discountFraming,
            discountText: discount, highlightedPlan: paywall.highlightedPlan, plans: plans(paywall, products: products, currency: currency),
            copy: resolveCopy(paywall.copy, request: request))
    }

    /// The offering's plans in the storefront's currency, ordered by period length then key
    /// (weekly before monthly before annual).
    public static func plans(_ paywall: Paywall, products: Products, currency: String? = nil) -> [ResolvedPlan] {
        let order = ["P1W": 0, "P1M": 1, "P2M": 2, "P3M": 3, "P6M": 4, "P1Y": 5]
        let currency = currency ?? products.currency
        return (products.offerings[paywall.offering] ?? [:])
            .sorted { (order[$0.value.period] ?? 9, $0.key) < (order[$1.value.period] ?? 9, $1.key) }
            .map { key, plan in
                // Validation guarantees a price in every storefront currency.
                let price = plan.price(in: currency, default: products.currency)
                return ResolvedPlan(key: key, productID: plan.productID, price: price ?? plan.price, period: plan.period,
                                    currency: price == nil ? products.currency : currency, highlighted: key == paywall.highlightedPlan)
            }
    }

    public static func resolveCopy(_ copy: CopySpec, request: PaywallRequest) -> ResolvedCopy {
        switch copy {
        case .staticText(let text):
            return .text(text, source: .static, fallbackReason: nil)
        case .customVariable(let template, let defaults):
            let text = template.render { expression in
                guard expression.hasPrefix("custom.") else { return nil }
                let name = String(expression.dropFirst("custom.".count))
                // An empty request value would leave "…, hear every bird": treat it as missing.
                if let v = request.variables[name], !isBlank(v) { return v }
                return defaults[name]
            }
            return .text(text, source: .template, fallbackReason: nil)
        case .aiGenerated(let recipe):
            let brief = recipe.brief.build(signals: request.signals)
            if brief.isEmpty { return .text(recipe.fallback, source: .fallback, fallbackReason: .emptyBrief) }
            let prompt = recipe.prompt.render { $0 == "brief" ? brief : nil }
            return .recipe(CopyRecipe(recipe, brief: brief, prompt: prompt))
        }
    }

    /// Only spaces and tabs (what Foundation's `.whitespaces` trims), checked without building a trimmed copy.
    static func isBlank(_ s: String) -> Bool {
        s.unicodeScalars.allSatisfy { $0 == "\t" || $0.properties.generalCategory == .spaceSeparator }
    }
}
