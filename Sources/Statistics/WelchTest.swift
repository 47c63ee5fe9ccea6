import Foundation

/// Welch's unequal-variance t-test of a variant's mean against the control's.
///
/// Used for `revenue_per_user`. Matches scipy `ttest_ind(equal_var=False)` and its
/// `confidence_interval`. Degrees of freedom follow Welch–Satterthwaite.
public struct WelchTest: Sendable, Equatable, Codable {
    /// mean_variant − mean_control.
    public let meanDifference: Double
    /// sqrt(s₁²/n₁ + s₂²/n₂).
    public let standardError: Double
    /// Welch–Satterthwaite degrees of freedom, or nil when both arms have zero variance.
    public let degreesOfFreedom: Double?
    /// The t statistic, or nil when the standard error is 0.
    public let tStatistic: Double?
    /// Two-sided p-value. When both arms have zero variance it is defined as 1 if the
    /// means are equal and 0 if they differ (the limit of the test).
    public let pValue: Double
    /// The 1 − alpha interval d ± t(1 − α/2, df)·SE; the point [d, d] when SE is 0.
    public let interval: Interval
    /// mean_variant / mean_control − 1, or nil unless the control mean is positive.
    public let relativeLift: Double?
    /// The delta method on the log of the ratio of means, so it never goes below −100%:
    /// exp(ln(m₂/m₁) ± z·sqrt(v₁/m₁² + v₂/m₂²)) − 1, vᵢ = sᵢ²/nᵢ; nil unless both means are positive.
    public let relativeInterval: Interval?

    /// Compares two samples; each needs at least two values.
    public init(control: SampleSummary, variant: SampleSummary, alpha: Double = 0.05) throws {
        try Check.alpha(alpha)
        let m1 = try control.mean(), m2 = try variant.mean()
        let v1 = try control.variance() / Double(control.count)
        let v2 = try variant.variance() / Double(variant.count)
        let difference = m2 - m1
        let se = (v1 + v2).squareRoot()
        meanDifference = difference
        standardError = se
        if se > 0 {
            let df = (v1 + v2) * (v1 + v2) / (v1 * v1 / Double(control.count - 1) + v2 * v2 / Double(variant.count - 1))
            let t = difference / se
            degreesOfFreedom = df
            tStatistic = t
            pValue = min(1, 2 * StudentT.survival(abs(t), degreesOfFreedom: df))
            let critical = StudentT.quantile(1 - alpha / 2, degreesOfFreedom: df)
            interval = Interval(lower: difference - critical * se, upper: difference + critical * se)
        } else {
            degreesOfFreedom = nil
            tStatistic = nil
            pValue = difference == 0 ? 1 : 0
            interval = Interval(lower: difference, upper: difference)
        }
        relativeLift = m1 > 0 ? m2 / m1 - 1 : nil
        if m1 > 0, m2 > 0 {
            let z = Normal.upperQuantile(alpha / 2)
            let logRatio = log(m2 / m1)
            let logError = (v1 / (m1 * m1) + v2 / (m2 * m2)).squareRoot()
            relativeInterval = Interval(lower: exp(logRatio - z * logError) - 1, upper: exp(logRatio + z * logError) - 1)
        } else {
            relativeInterval = nil
        }
    }
}
