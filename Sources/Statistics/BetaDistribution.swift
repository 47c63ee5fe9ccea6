import Foundation

/// A Beta(α, β) distribution, the posterior of a conversion rate.
public struct BetaDistribution: Sendable, Equatable, Hashable {
    public let alpha: Double
    public let beta: Double

    /// The uniform Beta(1, 1) prior the reports use.
    public static let uniform = BetaDistribution(uncheckedAlpha: 1, beta: 1)

    /// Throws unless both parameters are positive and finite.
    public init(alpha: Double, beta: Double) throws {
        try Check.positive(alpha, "alpha")
        try Check.positive(beta, "beta")
        self.alpha = alpha
        self.beta = beta
    }

    init(uncheckedAlpha alpha: Double, beta: Double) {
        self.alpha = alpha
        self.beta = beta
    }

    /// The posterior after observing `conversions` out of `users`: Beta(α + c, β + n − c).
    public func posterior(after proportion: Proportion) -> BetaDistribution {
        BetaDistribution(uncheckedAlpha: alpha + Double(proportion.count), beta: beta + Double(proportion.total - proportion.count))
    }

    public var mean: Double { alpha / (alpha + beta) }

    public var variance: Double {
        let s = alpha + beta
        return alpha * beta / (s * s * (s + 1))
    }

    /// P(X <= x).
    public func cdf(_ x: Double) -> Double {
        if x <= 0 { return 0 }
        if x >= 1 { return 1 }
        return SpecialFunctions.incompleteBeta(x: x, y: 1 - x, a: alpha, b: beta)
    }

    /// P(X > x), without cancellation in the upper tail.
    public func survival(_ x: Double) -> Double {
        if x <= 0 { return 1 }
        if x >= 1 { return 0 }
        return SpecialFunctions.incompleteBeta(x: 1 - x, y: x, a: beta, b: alpha)
    }

    /// The density at x in (0, 1); 0 outside.
    public func pdf(_ x: Double) -> Double {
        guard x > 0, x < 1 else { return 0 }
        return exp(SpecialFunctions.logBetaDensity(x, a: alpha, b: beta))
    }

    public var standardDeviation: Double { variance.squareRoot() }

    /// Quadrature breakpoints for an integral against this density whose other factors are
    /// CDFs of `others`: this density's mean ± up to 40 standard deviations (beyond which even
    /// an exponential-shaped beta has mass below 1e-17), plus the others' transitions out to 40
    /// of their standard deviations (a rule on a wide segment cannot see a CDF that rises within
    /// its first node, so the narrow arms' ramps need points of their own).
    func quadraturePoints(others: [BetaDistribution]) -> [Double] {
        let sd = standardDeviation
        let low = max(0, mean - 40 * sd), high = min(1, mean + 40 * sd)
        var points = [-40.0, -20, -10, -5, -2.5, 0, 2.5, 5, 10, 20, 40].map { min(high, max(low, mean + $0 * sd)) }
        for other in others {
            for k in [-40.0, -20, -10, -5, -2.5, 0, 2.5, 5, 10, 20, 40] {
                let point = other.mean + k * other.standardDeviation
                if point > low && point < high { points.append(point) }
            }
        }
        return points
    }
}
