/// A closed interval `[lower, upper]`, used for confidence and credible intervals.
///
/// `lower <= upper` always holds for intervals this module returns.
public struct Interval: Sendable, Equatable, Hashable, Codable {
    public var lower: Double
    public var upper: Double

    public init(lower: Double, upper: Double) {
        self.lower = lower
        self.upper = upper
    }

    /// Whether `value` lies in the closed interval.
    public func contains(_ value: Double) -> Bool { lower <= value && value <= upper }

    /// The interval as a two-element array, the shape the report JSON uses.
    public var array: [Double] { [lower, upper] }

    /// The overlap of two intervals, or nil when they do not meet.
    public func intersection(_ other: Interval) -> Interval? {
        let lo = Swift.max(lower, other.lower), hi = Swift.min(upper, other.upper)
        return lo <= hi ? Interval(lower: lo, upper: hi) : nil
    }
}
