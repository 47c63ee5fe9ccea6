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
    /// p_variant / p_control − 1, or nil when either arm has no successes (a ratio with a zero
    /// count has no usable interval, and −100% from a handful of users is not a finding).
    public let relativeLift: Double?
    /// The log-ratio (Katz) interval for the lift, so it never goes below −100%:
    /// exp(ln(p₂/p₁) ± z·sqrt(1/x₂ − 1/n₂ + 1/x₁ − 1/n₁)) − 1 (statsmodels
    /// `confint_proportions_2indep(compare="ratio", method="log")`); nil when the lift is nil.
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

        if control.count > 0, variant.count > 0 {
            let x1 = Double(control.count), x2 = Double(variant.count)
            let n1 = Double(control.total), n2 = Double(variant.total)
            let logRatio = log(p2 / p1)
            let logError = max(0, 1 / x2 - 1 / n2 + 1 / x1 - 1 / n1).squareRoot()
            relativeLift = p2 / p1 - 1
            relativeInterval = Interval(lower: exp(logRatio - z * logError) - 1, upper: exp(logRatio + z * logError) - 1)
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
