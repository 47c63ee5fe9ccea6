import ExperimentDefinitions

/// One `--by` dimension of the report (the JSON's `segments`; docs/Segments.md): the comparisons of
/// the primary, guardrail and secondary metrics inside each value's users, Holm-adjusted across the
/// cells of one (metric, variant), and Cochran's Q heterogeneity per (metric, variant).
/// Exploratory: segments never change the verdict.
public struct SegmentDimension: Sendable, Equatable {
    /// One value of the dimension (or `other`, the values pooled for having too few users or events).
    /// A value's cell compares the metrics it stands alone for; a value pooled for a rate only (too few
    /// events of it) is in that rate's `other`. Metrics with the same pool share one `other` cell, so a
    /// dimension may have several: each (value, metric, variant) is in exactly one cell.
    public struct Cell: Sendable, Equatable {
        public var value: String
        /// Counted users of every variant in the cell.
        public var users: Int
        /// In variant order.
        public var usersByVariant: [Int]
        /// For `other`: the values pooled into it (behind its comparisons), by users (most first).
        public var pooledValues: [String]
        /// Each treatment against the control in this cell, in (metric, variant) order; `p_value_adjusted`
        /// is Holm across the dimension's cells of that (metric, variant).
        public var comparisons: [ComparisonResult]

        public init(value: String, users: Int, usersByVariant: [Int], pooledValues: [String] = [], comparisons: [ComparisonResult]) {
            self.value = value
            self.users = users
            self.usersByVariant = usersByVariant
            self.pooledValues = pooledValues
            self.comparisons = comparisons
        }
    }

    /// Cochran's Q over the cells' absolute differences of one (metric, variant).
    public struct Heterogeneity: Sendable, Equatable {
        public var metric: Metric
        public var variant: String
        public var pValue: Double?
        public var statistic: Double?
        /// Cells that entered the test (those whose difference has a spread).
        public var cells: Int
        public var nullReason: String?

        public init(metric: Metric, variant: String, pValue: Double?, statistic: Double?, cells: Int, nullReason: String? = nil) {
            self.metric = metric
            self.variant = variant
            self.pValue = pValue
            self.statistic = statistic
            self.cells = cells
            self.nullReason = nullReason
        }

        /// Below this, the report says in words that the effect differs by the dimension.
        public static let threshold = 0.01
        public var differs: Bool { (pValue ?? 1) < Self.threshold }
    }

    public var dimension: String
    /// The smallest number of users a value needs in every arm to stand alone (`--min-segment-users`).
    public var minUsers: Int
    /// Values by users, most first, then `(none)`, then each `other` (in the order of the first metric it serves).
    public var cells: [Cell]
    /// In (metric, variant) order of the cells' comparisons.
    public var heterogeneity: [Heterogeneity]

    public init(dimension: String, minUsers: Int, cells: [Cell], heterogeneity: [Heterogeneity]) {
        self.dimension = dimension
        self.minUsers = minUsers
        self.cells = cells
        self.heterogeneity = heterogeneity
    }

    /// The metrics the cells compare, in order.
    public var metrics: [Metric] {
        var out: [Metric] = []
        for h in heterogeneity where !out.contains(h.metric) { out.append(h.metric) }
        return out
    }

    /// The plain-words line for each (metric, variant) whose effect differs by this dimension.
    public var differenceSentences: [String] {
        heterogeneity.filter(\.differs).map { h in
            "The effect of \(h.variant) on \(h.metric.title.lowercased()) differs by \(dimension) (Cochran's Q p = \(Wording.pValue(h.pValue)))."
        }
    }

    /// Said with every segments table, in every format.
    public static let exploratoryNote = "Segments are exploratory: they never change the verdict."
}

/// What post-stratification did to one comparison: the figures a plain comparison would
/// have given, and the share of variance the strata removed. A class, as a comparison cannot hold
/// a comparison by value.
public final class Adjustment: Sendable, Equatable {
    /// The comparison without adjustment (same fields as any comparison).
    public let unadjusted: ComparisonResult
    /// 1 − adjusted variance / unadjusted variance (negative when the strata added noise); nil with its reason.
    public let varianceReduction: Double?
    public let varianceReductionNullReason: String?
    /// The attributes adjusted for, and how many strata were used after pooling.
    public let attributes: [String]
    public let strata: Int

    public init(unadjusted: ComparisonResult, varianceReduction: Double?, varianceReductionNullReason: String? = nil,
                attributes: [String], strata: Int) {
        self.unadjusted = unadjusted
        self.varianceReduction = varianceReduction
        self.varianceReductionNullReason = varianceReductionNullReason
        self.attributes = attributes
        self.strata = strata
    }

    public static func == (a: Adjustment, b: Adjustment) -> Bool {
        a.unadjusted == b.unadjusted && a.varianceReduction == b.varianceReduction
            && a.varianceReductionNullReason == b.varianceReductionNullReason && a.attributes == b.attributes && a.strata == b.strata
    }
}
