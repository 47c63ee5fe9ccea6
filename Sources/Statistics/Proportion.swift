import Foundation

/// A binomial count: `count` successes out of `total` users, with its Wilson interval.
///
/// Construction validates `0 <= count <= total` and `total > 0`; an arm with no
/// users has no rate, so callers must skip it (or report it as empty) before
/// building a `Proportion`. Input types are deliberately not `Codable`: decoding would
/// bypass the checks, so decode the counts and call `init`.
public struct Proportion: Sendable, Equatable, Hashable {
    public let count: Int
    public let total: Int

    /// Throws `StatisticsError.invalidArgument` for negative counts, `count > total` or `total == 0`.
    public init(count: Int, total: Int) throws {
        try Check.binomial(count: count, total: total, "count", "total")
        self.count = count
        self.total = total
    }

    /// The observed rate count / total.
    public var rate: Double { Double(count) / Double(total) }

    /// The Bernoulli variance of the rate estimate, p(1 − p) / n.
    public var varianceOfRate: Double { rate * (1 - rate) / Double(total) }

    /// The Wilson score interval at level 1 − alpha (matches statsmodels `proportion_confint(method="wilson")`).
    ///
    /// Bounds are clamped to [0, 1]; with zero successes the lower bound is exactly 0,
    /// with all successes the upper bound is exactly 1.
    public func wilsonInterval(alpha: Double = 0.05) throws -> Interval {
        try Check.alpha(alpha)
        let z = Normal.upperQuantile(alpha / 2)
        let n = Double(total), p = rate, z2 = z * z
        let denominator = 1 + z2 / n
        let centre = (p + z2 / (2 * n)) / denominator
        let halfWidth = z / denominator * (p * (1 - p) / n + z2 / (4 * n * n)).squareRoot()
        let lower = count == 0 ? 0 : max(0, centre - halfWidth)
        let upper = count == total ? 1 : min(1, centre + halfWidth)
        return Interval(lower: lower, upper: upper)
    }
}
