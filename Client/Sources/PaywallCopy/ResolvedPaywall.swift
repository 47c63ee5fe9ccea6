import ExperimentDefinitions

/// A variant's paywall made concrete for one request: prices framed, copy filled or a recipe handed over.
public struct ResolvedPaywall: Sendable {
    public var offering: String
    public var trialDays: Int
    public var discountFraming: DiscountFraming
    /// Computed from `products.json`; nil for `none`.
    public var discountText: String?
    public var highlightedPlan: String?
    /// The offering's plans from `products.json`, by plan key, so the app needs no copy of the price table.
    public var plans: [ResolvedPlan]
    public var copy: ResolvedCopy

    /// Public so an app can bundle a default paywall (AbctlClient) and read one back from JSON.
    public init(offering: String, trialDays: Int, discountFraming: DiscountFraming = .none, discountText: String? = nil,
                highlightedPlan: String? = nil, plans: [ResolvedPlan] = [], copy: ResolvedCopy) {
        self.plans = plans
        self.offering = offering
        self.trialDays = trialDays
        self.discountFraming = discountFraming
        self.discountText = discountText
        self.highlightedPlan = highlightedPlan
        self.copy = copy
    }
}

/// One plan of a resolved paywall's offering (an entry of the paywall's `plans`).
public struct ResolvedPlan: Sendable, Equatable {
    public var key: String
    public var productID: String
    public var price: Double
    /// ISO 8601 duration: P1W, P1M, P1Y, …
    public var period: String
    public var currency: String
    /// The paywall's `highlighted_plan`.
    public var highlighted: Bool

    public init(key: String, productID: String, price: Double, period: String, currency: String, highlighted: Bool) {
        self.key = key
        self.productID = productID
        self.price = price
        self.period = period
        self.currency = currency
        self.highlighted = highlighted
    }
}

/// The copy of a resolved paywall.
public enum ResolvedCopy: Sendable {
    /// Text ready to show: static, a filled template, or an AI arm's fallback.
    case text(String, source: CopySource, fallbackReason: FallbackReason?)
    /// An AI arm with a brief: the app (or the server) generates the line from the recipe.
    case recipe(CopyRecipe)
}

/// Everything a model needs to write one line, with the guard and the line to show if it cannot.
public struct CopyRecipe: Sendable {
    public var instructions: String
    public var brief: String
    /// The prompt with `{{ brief }}` filled.
    public var prompt: String
    public var temperature: Double?
    public var maxTokens: Int?
    public var guardRules: CopyGuard
    public var fallback: String

    public init(instructions: String, brief: String, prompt: String, temperature: Double? = nil, maxTokens: Int? = nil,
                guardRules: CopyGuard, fallback: String) {
        self.instructions = instructions
        self.brief = brief
        self.prompt = prompt
        self.temperature = temperature
        self.maxTokens = maxTokens
        self.guardRules = guardRules
        self.fallback = fallback
    }
}

extension CopyRecipe {
    /// The recipe of an AI arm for one brief (and the prompt built from it). In an extension, so
    /// the memberwise initialiser stays.
    public init(_ spec: AIRecipe, brief: String, prompt: String) {
        self.init(instructions: spec.instructions, brief: brief, prompt: prompt, temperature: spec.temperature,
                  maxTokens: spec.maxTokens, guardRules: spec.guardRules, fallback: spec.fallback)
    }
}
