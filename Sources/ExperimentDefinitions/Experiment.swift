import Foundation

/// One experiment file of `Experiments/` (SPEC §1), with every default applied.
public struct Experiment: Sendable {
    public enum Status: String, Sendable, CaseIterable {
        case draft, running, paused, stopped
    }

    public var id: String
    public var name: String
    public var hypothesis: String?
    public var owner: String?
    public var status: Status
    public var start: Date?
    public var end: Date?
    /// Hash seed; defaults to `id`.
    public var seed: String
    /// 1 or 2 (SPEC §2).
    public var hashVersion: Int
    /// Fraction of eligible users who enter, in [0, 1].
    public var coverage: Double
    public var namespace: Namespace?
    public var targeting: Targeting
    /// A GrowthBook condition over the request's attributes, when `targeting` cannot say it.
    public var condition: JSONValue?
    public var metrics: MetricsConfig
    public var sticky: Bool
    /// QA overrides: user id to variant key. Forced users are never counted in reports.
    public var forced: [UserID: String]
    /// The first variant is the control.
    public var variants: [Variant]
    /// The file it came from, for messages.
    public var sourcePath: String
    /// `forecast`: the revenue forecast's horizon.
    public var forecast = ForecastConfig()

    public init(
        id: String, name: String, hypothesis: String? = nil, owner: String? = nil, status: Status,
        start: Date? = nil, end: Date? = nil, seed: String? = nil, hashVersion: Int = 2, coverage: Double = 1,
        namespace: Namespace? = nil, targeting: Targeting = Targeting(), condition: JSONValue? = nil,
        metrics: MetricsConfig = MetricsConfig(), sticky: Bool = true, forced: [UserID: String] = [:],
        variants: [Variant], sourcePath: String = ""
    ) {
        self.id = id
        self.name = name
        self.hypothesis = hypothesis
        self.owner = owner
        self.status = status
        self.start = start
        self.end = end
        self.seed = seed ?? id
        self.hashVersion = hashVersion
        self.coverage = coverage
        self.namespace = namespace
        self.targeting = targeting
        self.condition = condition
        self.metrics = metrics
        self.sticky = sticky
        self.forced = forced
        self.variants = variants
        self.sourcePath = sourcePath
    }

    public var control: Variant { variants[0] }

    public func variant(_ key: String) -> Variant? { variants.first { $0.key == key } }

    /// Weights normalised to sum to 1, in variant order.
    public var normalizedWeights: [Double] {
        let total = variants.reduce(0) { $0 + $1.weight }
        return variants.map { $0.weight / total }
    }
}

/// A namespace slice: experiments in one namespace with disjoint ranges never share a user.
public struct Namespace: Sendable, Equatable {
    public var id: String
    public var start: Double
    public var end: Double

    public init(id: String, start: Double, end: Double) {
        self.id = id
        self.start = start
        self.end = end
    }

    /// Half-open ranges overlap when each starts before the other ends.
    public func overlaps(_ other: Namespace) -> Bool {
        id == other.id && start < other.end && other.start < end
    }
}

/// Which metrics decide the experiment, and its metric settings.
public struct MetricsConfig: Sendable, Equatable {
    public var primary: Metric
    public var guardrails: [Metric]
    /// Reported and compared, never deciding the verdict.
    public var secondary: [Metric]
    /// A trial cancel within this many hours of the trial start is a Day-0 cancel.
    public var day0WindowHours: Double
    /// The smallest relative lift worth detecting; drives the "too few users" health check.
    public var minimumEffect: Double
    /// Opt-in always-valid (mSPRT) monitoring, for teams that look every day.
    public var sequential: Bool
    /// Caps each user's net revenue before every revenue figure; nil leaves revenue as it is.
    public var revenueCap: RevenueCap?

    public init(
        primary: Metric = .paidConversion, guardrails: [Metric] = [.day0CancelRate], secondary: [Metric] = [],
        day0WindowHours: Double = 24, minimumEffect: Double = 0.1, sequential: Bool = false, revenueCap: RevenueCap? = nil
    ) {
        self.primary = primary
        self.guardrails = guardrails
        self.secondary = secondary
        self.day0WindowHours = day0WindowHours
        self.minimumEffect = minimumEffect
        self.sequential = sequential
        self.revenueCap = revenueCap
    }

    /// What a report shows: every metric of the table, then each metric the file names that is
    /// not among them (horizon forms), in the order primary, guardrails, secondary.
    public var reported: [Metric] {
        var out = Metric.baseMetrics
        for m in [primary] + guardrails + secondary where !out.contains(m) { out.append(m) }
        return out
    }
}

/// `metrics.revenue_cap`: each user's net revenue above the cap becomes the cap (negative values stay).
public enum RevenueCap: Sendable, Equatable {
    /// numpy's default (linear) quantile `p`, 0 < p < 1, of the strictly positive per-user revenues pooled over all variants.
    case percentile(Double)
    /// A fixed amount in the currency of `products.json`.
    case absolute(Double)
}
