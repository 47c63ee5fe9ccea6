import Foundation

/// One experiment file of `Experiments/`, with every default applied.
public struct Experiment: Sendable {
    public enum Status: String, Sendable, CaseIterable {
        /// `shipped`: enrollment closed at `end`; everyone the targeting takes gets the `winner`'s paywall.
        case draft, running, paused, stopped, shipped
    }

    /// An ordinary experiment, or a global holdout: two implicit arms, `holdout` (weight
    /// `fraction`) and `general`, whose `holdout` users are left out of every other experiment.
    public enum Kind: String, Sendable, CaseIterable {
        case experiment, holdout
    }

    /// The arm keys of a holdout experiment.
    public static let holdoutArm = "holdout", generalArm = "general"

    public var id: String
    public var name: String
    public var hypothesis: String?
    public var owner: String?
    public var status: Status
    public var kind: Kind
    /// A holdout's share of the users it targets (0 < F <= 0.2); nil for experiments.
    public var fraction: Double?
    /// The shipped variant's key (status `shipped` only).
    public var winner: String?
    public var start: Date?
    public var end: Date?
    /// Hash seed; defaults to `id`.
    public var seed: String
    /// GrowthBook's hash version: 1 or 2.
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
    /// Coverage ramped up stage by stage from `start`; nil: all of `coverage` from the start.
    public var rollout: Rollout?
    /// Harmful arms stop themselves; nil: no safeguards.
    public var safeguards: SafeguardsConfig?
    /// Learned weights (a bandit); nil: the file's weights always hold.
    public var allocation: AllocationConfig?
    /// Exposure attributes beyond `Segments.standardDimensions` that `report --by` may split by.
    public var segments: [String]
    /// The file it came from, for messages.
    public var sourcePath: String
    /// `forecast`: the revenue forecast's horizon.
    public var forecast = ForecastConfig()

    public init(
        id: String, name: String, hypothesis: String? = nil, owner: String? = nil, status: Status,
        start: Date? = nil, end: Date? = nil, seed: String? = nil, hashVersion: Int = 2, coverage: Double = 1,
        namespace: Namespace? = nil, targeting: Targeting = Targeting(), condition: JSONValue? = nil,
        metrics: MetricsConfig = MetricsConfig(), sticky: Bool = true, forced: [UserID: String] = [:],
        variants: [Variant], rollout: Rollout? = nil, safeguards: SafeguardsConfig? = nil, segments: [String] = [], sourcePath: String = "",
        kind: Kind = .experiment, fraction: Double? = nil, winner: String? = nil
    ) {
        self.kind = kind
        self.fraction = fraction
        self.winner = winner
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
        self.rollout = rollout
        self.safeguards = safeguards
        self.segments = segments
        self.sourcePath = sourcePath
    }

    public var control: Variant { variants[0] }

    public var isHoldout: Bool { kind == .holdout }

    /// The shipped winner's variant, when the status is `shipped`.
    public var winnerVariant: Variant? {
        guard status == .shipped, let winner else { return nil }
        return variant(winner)
    }

    /// A holdout's two implicit arms, with no paywall: `holdout` (weight `fraction`) and `general`.
    public static func holdoutVariants(fraction: Double) -> [Variant] {
        [Variant(key: holdoutArm, weight: fraction, paywall: nil), Variant(key: generalArm, weight: 1 - fraction, paywall: nil)]
    }

    /// The dimensions `report --by` accepts for this experiment: the standard ones, the file's
    /// `segments` and `metrics.adjust_for`.
    public var segmentDimensions: [String] {
        var out = Segments.standardDimensions
        for name in segments + metrics.adjustFor where !out.contains(name) { out.append(name) }
        return out
    }

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

    /// The parts of [0, 1) that none of `taken` covers, in order (the slices of one namespace still free).
    public static func freeSlices(taken: [Namespace]) -> [Range<Double>] {
        var free: [Range<Double>] = []
        var cursor = 0.0
        for slice in taken.sorted(by: { $0.start < $1.start }) {
            if slice.start > cursor { free.append(cursor..<slice.start) }
            cursor = max(cursor, slice.end)
        }
        if cursor < 1 { free.append(cursor..<1) }
        return free
    }
}

extension Experiment {
    /// Maturity, the one rule reports, forecasts and safeguards all read: days until a
    /// user's figures settle, the longest trial of any arm plus `metrics.maturity_grace_days`.
    public var maturityDays: Int { longestTrialDays + metrics.maturityGraceDays }

    /// The longest `trial_days` of any arm (0 for a `paywall: null` arm).
    public var longestTrialDays: Int { variants.map { $0.paywall?.trialDays ?? 0 }.max() ?? 0 }
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
    /// Days after the longest trial before a user's conversion and revenue are settled (the user
    /// is then mature).
    public var maturityGraceDays: Int = 3
    /// Categorical exposure attributes the primary and guardrail comparisons are post-stratified
    /// on; empty for plain comparisons.
    public var adjustFor: [String]

    public init(
        primary: Metric = .paidConversion, guardrails: [Metric] = [.day0CancelRate], secondary: [Metric] = [],
        day0WindowHours: Double = 24, minimumEffect: Double = 0.1, sequential: Bool = false, revenueCap: RevenueCap? = nil,
        adjustFor: [String] = []
    ) {
        self.primary = primary
        self.guardrails = guardrails
        self.secondary = secondary
        self.day0WindowHours = day0WindowHours
        self.minimumEffect = minimumEffect
        self.sequential = sequential
        self.revenueCap = revenueCap
        self.adjustFor = adjustFor
    }

    /// What a report shows: every metric of the table, then each metric the file names that is
    /// not among them (horizon forms), in the order primary, guardrails, secondary; then the mature
    /// forms the verdict reads (`matureForm`) when `maturityDays` is given.
    public func reported(maturityDays: Int? = nil) -> [Metric] {
        var out = Metric.baseMetrics
        for m in [primary] + guardrails + secondary where !out.contains(m) { out.append(m) }
        if let days = maturityDays {
            for m in [primary] + guardrails where !out.contains(m.matureForm(days: days)) { out.append(m.matureForm(days: days)) }
        }
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

/// The names segments go by.
public enum Segments {
    /// Kept for every experiment, whatever its file says: `report --by` always accepts them.
    public static let standardDimensions = ["placement", "platform", "country", "language", "app_version", "new_user"]
    /// The segment of users whose first exposure did not carry the dimension.
    public static let noneValue = "(none)"
    /// The cell that pools values with too few users or events.
    public static let otherValue = "other"
    /// Segment and adjustment names: at most this many per list, each at most 256 bytes (an attribute key's limit).
    public static let maxNames = 32
    public static let maxNameBytes = 256
}
