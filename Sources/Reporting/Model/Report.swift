import Events
import ExperimentDefinitions
import Foundation

/// The results of one experiment, fully computed: what every renderer reads, and only reads.
/// Built whole by the analysis: the figures, then the health checks and the verdict made from them.
@dynamicMemberLookup
public struct Report: Sendable {
    public var figures: ReportFigures
    /// Plain-words checks, most serious first.
    public var health: [HealthCheck]
    public var decision: Decision

    public init(figures: ReportFigures, health: [HealthCheck], decision: Decision) {
        self.figures = figures
        self.health = health
        self.decision = decision
    }

    /// Every figure reads as a member of the report (`report.variants`, `report.alpha`, …).
    public subscript<T>(dynamicMember path: WritableKeyPath<ReportFigures, T>) -> T {
        get { figures[keyPath: path] }
        set { figures[keyPath: path] = newValue }
    }

    public subscript<T>(dynamicMember path: KeyPath<ReportFigures, T>) -> T { figures[keyPath: path] }

    public func comparison(_ variant: String, _ metric: Metric) -> ComparisonResult? { figures.comparison(variant, metric) }
}

/// The figures of one experiment's report: everything the analysis computes before it judges them
/// (health checks and the verdict read these, then `Report` holds all three).
///
/// Numbers that cannot be computed (a rate with no users, a lift over a zero control)
/// are nil, and `nullReasons` says why in plain words; nothing here is NaN or infinite.
public struct ReportFigures: Sendable {
    public var experimentID: String
    public var experimentName: String
    public var hypothesis: String?
    public var status: String
    /// The as-of moment, which `generated_at` always is (the analysis sets it to `asOf`).
    public var generatedAt: Date
    /// The one moment every figure is cut at (`ReportInputs.asOf`: `--until`, else the clock, else where the store's data ends).
    public var asOf: Date
    public var since: Date?
    public var until: Date?
    public var alpha: Double
    public var primaryMetric: Metric
    public var guardrails: [Metric]
    /// Reported and compared, never deciding the verdict.
    public var secondary: [Metric]
    /// Every metric shown, in order: the table's, then the horizon metrics the file names.
    public var metrics: [Metric]
    public var revenueCap: RevenueCap?
    /// Days until a user's figures settle: the longest trial + `maturity_grace_days` (0 for hand-made reports).
    public var maturityDays: Int
    /// The longest `trial_days` of any arm (`maturityDays` less the grace).
    public var longestTrialDays: Int
    /// Per variant, in variant order: the share of its users first exposed at least `maturityDays` ago (nil with no users).
    public var matureShares: [Double?]
    /// The report currency: every revenue figure is in it.
    public var currency: String
    public var minimumEffect: Double
    public var sequential: Bool
    /// Counted users (forced users left out).
    public var users: Int
    /// Counted users exposed to more than one variant (each counted in its first).
    public var crossoverUsers: Int
    public var firstExposure: Date?
    public var lastExposure: Date?
    public var srm: SRMResult
    /// In experiment order; the first is the control.
    public var variants: [VariantResult]
    /// Each treatment against the control, for every metric, in (metric, variant) order.
    public var comparisons: [ComparisonResult]
    public var survival: SurvivalResult
    /// Cumulative paid conversion by day since exposure, per variant.
    public var conversionByDay: [ConversionCurve]
    /// Cumulative net revenue per exposed user by day since exposure (realised LTV), per variant.
    public var revenueByDay: [RevenueCurve]
    /// Variants with an `ai_generated` copy strategy, split by copy source.
    public var copySources: [CopySourceSplit]
    /// Users needed per variant for `minimumEffect` on the primary metric, when it can be computed.
    public var requiredUsersPerVariant: Int?
    /// Results by segment, one per `--by` dimension in the order asked; empty without `--by`.
    public var segments: [SegmentDimension] = []
    /// Per arm, in experiment order: what the stores gave against what the arm tested (`offer_mismatch`).
    public var offerMismatch: [OfferMismatch] = []
    /// Some proceeds counted are the revenue less the store's cut (`products.json` `stores`): tax is
    /// not known for them, and every format says "proceeds before tax".
    public var proceedsBeforeTax = false
    /// The arms whose discount claim differs between storefronts, each claim named.
    public var storefrontClaims: [StorefrontClaims] = []
    /// Each arm's revenue per user forecast at the horizon, in experiment order; nil until an arm has a mature payer.
    public var forecast: [ArmForecast]? = nil
    /// The safeguard stops made by the as-of time, oldest first (the JSON's `safeguards`): what was seen,
    /// when, the figures, and when it was lifted (nil while in force at the as-of time).
    public var safeguards: [SafeguardStop] = []
    /// A bandit's periods and each arm's chance of being best (`allocation`); nil for other experiments.
    public var allocation: AllocationResult?
    /// The metrics the experiment's safeguards watch: their harm comes first in the verdict's reasons, as a guardrail's does.
    public var safeguardMetrics: [Metric] = []
    /// The primary metric's comparison day by day (no points when the primary is a forecast).
    public var timeline: Timeline? = nil

    public init(experimentID: String, experimentName: String, hypothesis: String? = nil, status: String, generatedAt: Date, asOf: Date,
                since: Date? = nil, until: Date? = nil, alpha: Double, primaryMetric: Metric, guardrails: [Metric], secondary: [Metric] = [],
                metrics: [Metric] = Metric.baseMetrics, revenueCap: RevenueCap? = nil, maturityDays: Int = 0, longestTrialDays: Int = 0, matureShares: [Double?] = [],
                currency: String = "USD", minimumEffect: Double,
                sequential: Bool, users: Int, crossoverUsers: Int = 0, firstExposure: Date? = nil, lastExposure: Date? = nil, srm: SRMResult,
                variants: [VariantResult], comparisons: [ComparisonResult], survival: SurvivalResult, conversionByDay: [ConversionCurve],
                revenueByDay: [RevenueCurve] = [], copySources: [CopySourceSplit], requiredUsersPerVariant: Int? = nil) {
        self.experimentID = experimentID
        self.experimentName = experimentName
        self.hypothesis = hypothesis
        self.status = status
        self.generatedAt = generatedAt
        self.asOf = asOf
        self.since = since
        self.until = until
        self.alpha = alpha
        self.primaryMetric = primaryMetric
        self.guardrails = guardrails
        self.secondary = secondary
        self.metrics = metrics
        self.revenueCap = revenueCap
        self.maturityDays = maturityDays
        self.longestTrialDays = longestTrialDays
        self.matureShares = matureShares
        self.currency = currency
        self.minimumEffect = minimumEffect
        self.sequential = sequential
        self.users = users
        self.crossoverUsers = crossoverUsers
        self.firstExposure = firstExposure
        self.lastExposure = lastExposure
        self.srm = srm
        self.variants = variants
        self.comparisons = comparisons
        self.survival = survival
        self.conversionByDay = conversionByDay
        self.revenueByDay = revenueByDay
        self.copySources = copySources
        self.requiredUsersPerVariant = requiredUsersPerVariant
    }

    public var control: VariantResult { variants[0] }

    public func comparison(_ variant: String, _ metric: Metric) -> ComparisonResult? {
        comparisons.first { $0.variant == variant && $0.metric == metric }
    }

    /// The form of `m` the verdict reads: its mature `_dN` form when it settles after the trial and
    /// the report computed it, else `m`.
    public func verdictForm(_ m: Metric) -> Metric {
        let mature = m.matureForm(days: maturityDays)
        return metrics.contains(mature) ? mature : m
    }

    /// The primary metric as the verdict reads it.
    public var verdictPrimary: Metric { verdictForm(primaryMetric) }

    /// The smallest share of mature users over the arms, when the verdict reads a mature form at all.
    public var smallestMatureShare: (key: String, share: Double)? {
        let reads = ([primaryMetric] + guardrails).contains { verdictForm($0) != $0 }
        guard reads else { return nil }
        return zip(variants.map(\.key), matureShares).compactMap { k, s in s.map { (k, $0) } }.min { $0.1 < $1.1 }
    }

    /// The confidence level as a percentage, e.g. "95%".
    public var confidenceLabel: String {
        let level = (1 - alpha) * 100
        return level == level.rounded() ? "\(Int(level))%" : String(format: "%.1f%%", level)
    }
}

/// One arm's offers as the stores gave them (`offer_mismatch`): trial starts whose
/// store-granted `trial_days` differs from the arm's, and users who paid with no trial where the arm
/// offered one (the store gave none: the user was not eligible), over the arm's trial starters and
/// purchasers. Flagged only when that is not noise: a one-sided exact binomial test against 2% gives
/// p < 0.01 and, where the control offers the same `trial_days`, so does a one-sided Fisher exact test
/// against the control's share.
public struct OfferMismatch: Sendable, Equatable {
    /// The share the binomial test is against.
    public static let expectedShare = 0.02
    /// Both tests must fall below this for a warning.
    public static let level = 0.01

    public var variant: String
    /// The arm's `trial_days`.
    public var armTrialDays: Int
    public var trialStarts: Int
    /// Trial starts whose store-granted trial differs from `armTrialDays`, and by days granted.
    public var trialDaysDiffer: Int
    public var grantedDays: [(days: Int, users: Int)]
    /// Users who paid with no trial start in an arm with a trial.
    public var paidWithoutTrial: Int
    /// Trial starters and purchasers (users who paid with no trial start): the share's denominator.
    public var users: Int
    /// `trialDaysDiffer + paidWithoutTrial`.
    public var count: Int { trialDaysDiffer + paidWithoutTrial }
    /// `count` / `users`; nil with no users (`nullReasons` says why).
    public var share: Double?
    /// The one-sided exact binomial test of `count` of `users` against 2%.
    public var pValue: Double?
    /// The one-sided Fisher exact test against the control's share, when the control offers the same
    /// `trial_days` (nil for the control itself, with the reason).
    public var controlPValue: Double?
    /// Field name (as in JSON) to why it is null.
    public var nullReasons: [String: String] = [:]
    /// Both tests below `level`: the arm did not show what it tested.
    public var flagged: Bool

    public init(variant: String, armTrialDays: Int, trialStarts: Int, trialDaysDiffer: Int, grantedDays: [(days: Int, users: Int)],
                paidWithoutTrial: Int, users: Int, share: Double?, pValue: Double? = nil, controlPValue: Double? = nil,
                nullReasons: [String: String] = [:], flagged: Bool) {
        self.variant = variant
        self.armTrialDays = armTrialDays
        self.trialStarts = trialStarts
        self.trialDaysDiffer = trialDaysDiffer
        self.grantedDays = grantedDays
        self.paidWithoutTrial = paidWithoutTrial
        self.users = users
        self.share = share
        self.pValue = pValue
        self.controlPValue = controlPValue
        self.nullReasons = nullReasons
        self.flagged = flagged
    }

    public static func == (a: OfferMismatch, b: OfferMismatch) -> Bool {
        a.variant == b.variant && a.armTrialDays == b.armTrialDays && a.trialStarts == b.trialStarts
            && a.trialDaysDiffer == b.trialDaysDiffer && a.grantedDays.map(\.days) == b.grantedDays.map(\.days)
            && a.grantedDays.map(\.users) == b.grantedDays.map(\.users) && a.paidWithoutTrial == b.paidWithoutTrial
            && a.users == b.users && a.share == b.share && a.pValue == b.pValue && a.controlPValue == b.controlPValue
            && a.nullReasons == b.nullReasons && a.flagged == b.flagged
    }
}

/// A closed interval of the report (`[lower, upper]` in JSON).
public struct Bounds: Sendable, Equatable {
    public var lower: Double
    public var upper: Double
    public init(_ lower: Double, _ upper: Double) {
        self.lower = lower
        self.upper = upper
    }
    public func contains(_ x: Double) -> Bool { lower <= x && x <= upper }
}

/// Sample ratio mismatch: users per variant against the planned weights.
public struct SRMResult: Sendable, Equatable {
    public var pValue: Double?
    public var statistic: Double?
    public var flagged: Bool
    /// Planned shares, in variant order.
    public var expectedShares: [Double]
    /// Users counted, in variant order (empty: every variant's users), and the first safeguard stop when only users first exposed
    /// before it are counted (a stopped arm takes no new users after its stop).
    public var counts: [Int]
    public var countedBefore: Date?
    public var nullReason: String?
    public init(pValue: Double?, statistic: Double? = nil, flagged: Bool, expectedShares: [Double], counts: [Int] = [],
                countedBefore: Date? = nil, nullReason: String? = nil) {
        self.counts = counts
        self.countedBefore = countedBefore
        self.pValue = pValue
        self.statistic = statistic
        self.flagged = flagged
        self.expectedShares = expectedShares
        self.nullReason = nullReason
    }
}

/// One variant's users and metrics.
public struct VariantResult: Sendable, Equatable {
    public var key: String
    public var users: Int
    public var isControl: Bool
    /// In the order of `Report.metrics`.
    public var metrics: [MetricValue]
    public init(key: String, users: Int, isControl: Bool, metrics: [MetricValue]) {
        self.key = key
        self.users = users
        self.isControl = isControl
        self.metrics = metrics
    }
    public func metric(_ m: Metric) -> MetricValue? { metrics.first { $0.metric == m } }
}

/// A metric's value in one variant: a rate with its Wilson interval, or for revenue a mean with its t interval.
public struct MetricValue: Sendable, Equatable {
    public var metric: Metric
    /// The numerator (users); for `revenue_per_user`, users with non-zero net revenue.
    public var count: Int
    /// The denominator: exposed users or trial starters.
    public var denominator: Int
    /// count / denominator, or the mean net revenue per user.
    public var rate: Double?
    public var ci: Bounds?
    /// Total net revenue, capped (revenue metrics only).
    public var sum: Double?
    /// The revenue cap applied to each user (revenue metrics with `metrics.revenue_cap` only).
    public var cap: Double?
    public var nullReason: String?
    /// Why figures are short, keyed by field: `denominator` when users were left out of it (trial
    /// starters whose trial length cannot be told), with how many.
    public var nullReasons: [String: String] = [:]
    public init(metric: Metric, count: Int, denominator: Int, rate: Double?, ci: Bounds?, sum: Double? = nil, cap: Double? = nil, nullReason: String? = nil) {
        self.metric = metric
        self.count = count
        self.denominator = denominator
        self.rate = rate
        self.ci = ci
        self.sum = sum
        self.cap = cap
        self.nullReason = nullReason
    }
}

/// One treatment against the control on one metric.
public struct ComparisonResult: Sendable, Equatable {
    public var variant: String
    public var metric: Metric
    public var absoluteDiff: Double?
    public var absoluteCI: Bounds?
    public var relativeLift: Double?
    public var relativeCI: Bounds?
    public var pValue: Double?
    /// Holm-adjusted across the treatments of this metric (equal to `pValue` with one treatment).
    public var pValueAdjusted: Double?
    /// The chance the variant is better in the metric's good direction: P(variant > control), or
    /// P(variant < control) for lower-is-better rates; Beta(1, 1) priors for rates, the normal
    /// approximation for revenue.
    public var chanceToWin: Double?
    /// The expected shortfall in that direction: E[max(control − variant, 0)], mirrored for lower-is-better rates.
    public var expectedLoss: Double?
    /// The expected shortfall of shipping the variant: `expectedLoss` for higher-is-better metrics,
    /// E[max(rate_variant − rate_control, 0)] for cancel rates (where a rise is the loss).
    public var expectedLossIfShipped: Double?
    /// Always-valid (mSPRT) p-value and interval for the difference, when the experiment is sequential.
    public var sequentialPValue: Double?
    public var sequentialCI: Bounds?
    /// "z-test" for rates, "welch" for revenue per user.
    public var test: String
    /// The per-user revenue cap the figures used (revenue metrics; nil when uncapped).
    public var cap: Double?
    /// Field name (as in JSON) to why it is null.
    public var nullReasons: [String: String]
    /// How the verdict reads this comparison (decisive, better or worse, which p-value), set by the analysis.
    public var reading = VerdictReading()
    /// Set when the figures above are post-stratified (`metrics.adjust_for`): the plain figures and the variance reduction.
    public var adjustment: Adjustment?

    public init(variant: String, metric: Metric, absoluteDiff: Double? = nil, absoluteCI: Bounds? = nil, relativeLift: Double? = nil,
                relativeCI: Bounds? = nil, pValue: Double? = nil, pValueAdjusted: Double? = nil, chanceToWin: Double? = nil,
                expectedLoss: Double? = nil, sequentialPValue: Double? = nil, sequentialCI: Bounds? = nil, test: String,
                nullReasons: [String: String] = [:]) {
        self.variant = variant
        self.metric = metric
        self.absoluteDiff = absoluteDiff
        self.absoluteCI = absoluteCI
        self.relativeLift = relativeLift
        self.relativeCI = relativeCI
        self.pValue = pValue
        self.pValueAdjusted = pValueAdjusted
        self.chanceToWin = chanceToWin
        self.expectedLoss = expectedLoss
        self.expectedLossIfShipped = expectedLoss
        self.sequentialPValue = sequentialPValue
        self.sequentialCI = sequentialCI
        self.test = test
        self.nullReasons = nullReasons
    }

    /// The chance the variant is better in the metric's good direction: `chanceToWin`, which the
    /// analysis computes in that direction (kept under this name for readers of the older field).
    public var chanceToBeBetter: Double? { chanceToWin }
}

/// Kaplan–Meier survival of subscriptions from trial start to their end (a cancel that stood, or an expiry).
public struct SurvivalResult: Sendable, Equatable {
    public struct Curve: Sendable, Equatable {
        public var key: String
        public var trialStarters: Int
        public var cancels: Int
        /// At each of `days`: the share still subscribed at the end of that day since trial start (day 0 is the
        /// first 24 hours, where Day-0 cancels fall), S(d + 1) in days; nil when the variant has no trial starters.
        public var atDays: [Double]?
        public var intervals: [Bounds]?
        /// The step curve for charts: (day, S) at each drop, up to `maxDay`.
        public var steps: [(day: Double, survival: Double)]
        /// The ends counted in `cancels`, by kind.
        public var ends: [SubscriptionEndKind: Int]
        public init(key: String, trialStarters: Int, cancels: Int, atDays: [Double]?, intervals: [Bounds]? = nil, steps: [(day: Double, survival: Double)] = [],
                    ends: [SubscriptionEndKind: Int] = [:]) {
            self.key = key
            self.trialStarters = trialStarters
            self.cancels = cancels
            self.atDays = atDays
            self.intervals = intervals
            self.steps = steps
            self.ends = ends
        }
        public static func == (a: Curve, b: Curve) -> Bool {
            a.key == b.key && a.trialStarters == b.trialStarters && a.cancels == b.cancels && a.atDays == b.atDays && a.ends == b.ends
                && a.intervals == b.intervals && a.steps.map(\.day) == b.steps.map(\.day) && a.steps.map(\.survival) == b.steps.map(\.survival)
        }
    }
    public static let reportDays = [0, 1, 3, 7, 14, 30]
    public var days: [Int]
    public var curves: [Curve]
    public var logRankP: Double?
    public var nullReason: String?
    public init(days: [Int] = SurvivalResult.reportDays, curves: [Curve], logRankP: Double?, nullReason: String? = nil) {
        self.days = days
        self.curves = curves
        self.logRankP = logRankP
        self.nullReason = nullReason
    }
}

/// Cumulative paid conversion by day since first exposure for one variant.
public struct ConversionCurve: Sendable, Equatable {
    public var key: String
    /// Day d: the estimated share of users who pay within d days of first exposure (Kaplan–Meier over
    /// days, each user censored at the days they have been followed), and the users followed at least d days.
    public var points: [Point]
    public struct Point: Sendable, Equatable {
        public var day: Int
        public var users: Int
        public var rate: Double?
        public init(day: Int, users: Int, rate: Double?) {
            self.day = day
            self.users = users
            self.rate = rate
        }
    }
    public init(key: String, points: [Point]) {
        self.key = key
        self.points = points
    }
}

/// Cumulative net revenue per exposed user by day since first exposure for one variant (realised LTV).
public struct RevenueCurve: Sendable, Equatable {
    public var key: String
    public var points: [Point]
    public struct Point: Sendable, Equatable {
        public var day: Int
        /// Users followed at least `day` days.
        public var users: Int
        /// Nil when nobody has been followed that long.
        public var revenuePerUser: Double?
        public init(day: Int, users: Int, revenuePerUser: Double?) {
            self.day = day
            self.users = users
            self.revenuePerUser = revenuePerUser
        }
    }
    public init(key: String, points: [Point]) {
        self.key = key
        self.points = points
    }
}

/// An AI-copy variant split by where each user's line came from.
public struct CopySourceSplit: Sendable, Equatable {
    public struct Source: Sendable, Equatable {
        public var source: String
        public var users: Int
        public var paid: Int
        public init(source: String, users: Int, paid: Int) {
            self.source = source
            self.users = users
            self.paid = paid
        }
        public var paidRate: Double? { users > 0 ? Double(paid) / Double(users) : nil }
    }
    public var variant: String
    /// Most users first.
    public var sources: [Source]
    /// Most common first.
    public var fallbackReasons: [(reason: String, count: Int)]
    public init(variant: String, sources: [Source], fallbackReasons: [(reason: String, count: Int)]) {
        self.variant = variant
        self.sources = sources
        self.fallbackReasons = fallbackReasons
    }
    public static func == (a: CopySourceSplit, b: CopySourceSplit) -> Bool {
        a.variant == b.variant && a.sources == b.sources && a.fallbackReasons.map(\.reason) == b.fallbackReasons.map(\.reason)
            && a.fallbackReasons.map(\.count) == b.fallbackReasons.map(\.count)
    }
}

/// One health check, in words a product manager can act on.
public struct HealthCheck: Sendable, Equatable {
    public enum Level: String, Sendable, Comparable {
        case alert, warning, info, ok
        var rank: Int { [.alert: 0, .warning: 1, .info: 2, .ok: 3][self]! }
        public static func < (a: Level, b: Level) -> Bool { a.rank < b.rank }
    }
    public var level: Level
    /// A stable code: `srm`, `sample_size`, `guardrail`, `dates`, `forced_users`, `unknown_variants`, ….
    public var code: String
    public var message: String
    /// How many of what the entry is about (users, log-ins, payments), where it counts something (`count`).
    public var count: Int?
    public init(level: Level, code: String, message: String, count: Int? = nil) {
        self.level = level
        self.code = code
        self.message = message
        self.count = count
    }
}

/// The verdict and why.
public struct Decision: Sendable, Equatable {
    public enum Verdict: String, Sendable, CaseIterable {
        case ship, keepRunning = "keep_running", stop, inconclusive
    }
    public var verdict: Verdict
    /// The treatment to ship, when the verdict is `ship`.
    public var winner: String?
    public var reasons: [String]
    /// When a decision can be expected: the date by which, at the last 7 days' arrival rate, every arm
    /// holds the mature users the power calculation asks for (in the past once met); nil with `etaReason`.
    public var eta: Date?
    public var etaReason: String?
    public init(verdict: Verdict, winner: String? = nil, reasons: [String], eta: Date? = nil, etaReason: String? = nil) {
        self.verdict = verdict
        self.winner = winner
        self.reasons = reasons
        self.eta = eta
        self.etaReason = etaReason
    }
}

/// A bandit's allocation in the report (the JSON's `allocation`): per period the weights in force and
/// the users first exposed in it, and each arm's `chance_best` on the primary metric from the
/// period-stratified rates.
public struct AllocationResult: Sendable, Equatable {
    public struct Period: Sendable, Equatable {
        public var index: Int
        public var from: Date
        /// The next period's start; nil for the period in force at the as-of time.
        public var to: Date?
        /// In variant order.
        public var weights: [Double]
        public var users: [Int]
        /// How the weights were set: `first`, `burn_in`, `learned`, `carried`, or `file` when the store
        /// had no record of the period (a report on data without a server's periods).
        public var rule: String
    }
    public var variants: [String]
    public var periods: [Period]
    /// In variant order; nil with `chanceBestNullReason`.
    public var chanceBest: [Double]?
    public var chanceBestNullReason: String?
    /// The metric `chance_best` reads: the primary's mature form.
    public var metric: Metric
}
