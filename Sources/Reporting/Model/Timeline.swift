import ExperimentDefinitions
import Foundation

/// The effect over time: the verdict's primary metric compared day by day, each day as a report run
/// to that day's end would compare it (the users first exposed by then, as mature as they were then).
/// The last point is the report's own comparison, as of its as-of moment.
public struct Timeline: Sendable, Equatable {
    public struct Point: Sendable, Equatable {
        /// The UTC day (its midnight).
        public var date: Date
        /// The moment the point is read as of: the next midnight, or the report's as-of moment on its last day.
        public var asOf: Date
        /// Users counted by then, per variant in experiment order.
        public var users: [Int]
        /// Each treatment against the control, in experiment order: the difference and its interval
        /// (null with its reason while an arm has nobody to compare).
        public var comparisons: [ComparisonResult]
    }

    /// The metric compared: the primary in the form the verdict reads (`_dN` where maturity asks for it).
    public var metric: Metric
    /// The variants' keys, in experiment order; the first is the control.
    public var variants: [String]
    /// One point a day from the first day to the as-of day, at most `maxPoints`, evenly spaced beyond.
    public var points: [Point]

    /// Why there are no points, when there are none.
    public var nullReason: String?

    public static let maxPoints = 90

    public init(metric: Metric, variants: [String], points: [Point], nullReason: String? = nil) {
        self.metric = metric
        self.variants = variants
        self.points = points
        self.nullReason = nullReason
    }
}
