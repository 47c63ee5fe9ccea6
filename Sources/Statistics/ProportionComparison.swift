import Foundation

/// A variant's rate compared with the control's: difference, lift and the pooled z-test.
///
/// Build one with `ProportionComparison(control:variant:alpha:)`. Every field is
/// variant minus (or over) control.
public struct ProportionComparison: Sendable, Equatable, Codable {
    /// p_variant − p_control.
    public let absoluteDifference: Double
    /// Unpooled Wald interval for the difference: d ± z·sqrt(p₁q₁/n₁ + p₂q₂/n₂).
    ///
    /// When both rates are 0 or 1 the standard error is 0 and the interval is the point [d, d].
    public let absoluteInterval: Interval
    /// p_variant / p_control − 1, or nil when the control rate is 0 (the lift is undefined).
    public let relativeLift: Double?
    /// Delta-method interval for the lift: lift ± z·sqrt(v₂/p₁² + p₂²v₁/p₁⁴), vᵢ = pᵢqᵢ/nᵢ; nil when the lift is nil.
    public let relativeInterval: Interval?
    /// The pooled two-proportion z statistic, or nil when the pooled rate is 0 or 1 (no variation at all).
    public let zStatistic: Double?
    /// Two-sided p-value of the pooled z-test (statsmodels `proportions_ztest`);
    /// defined as 1 when the pooled rate is 0 or 1, where the two arms cannot differ.
    public let pValue: Double

    /// Compares `variant` with `control` at level 1 − alpha.
    public init(control: Proportion, variant: Proportion, alpha: Double = 0.05) throws {
        try Check.alpha(alpha)
        let z = Normal.upperQuantile(alpha / 2)
        let p1 = control.rate, p2 = variant.rate
        let v1 = control.varianceOfRate, v2 = variant.varianceOfRate
        let difference = p2 - p1
        let standardError = (v1 + v2).squareRoot()
        absoluteDifference = difference
        absoluteInterval = Interval(lower: difference - z * standardError, upper: difference + z * standardError)

        if p1 > 0 {
            let lift = p2 / p1 - 1
            let liftError = (v2 / (p1 * p1) + p2 * p2 * v1 / (p1 * p1 * p1 * p1)).squareRoot()
            relativeLift = lift
            relativeInterval = Interval(lower: lift - z * liftError, upper: lift + z * liftError)
        } else {
            relativeLift = nil
            relativeInterval = nil
        }

        let n1 = Double(control.total), n2 = Double(variant.total)
        let pooled = Double(control.count + variant.count) / (n1 + n2)
        let pooledVariance = pooled * (1 - pooled) * (1 / n1 + 1 / n2)
        if pooledVariance > 0 {
            let statistic = difference / pooledVariance.squareRoot()
            zStatistic = statistic
            pValue = min(1, 2 * Normal.survival(abs(statistic)))
        } else {
            zStatistic = nil
            pValue = 1
        }
    }
}
