import Foundation

/// Chance to win and expected loss for a difference of means, from the normal approximation of
/// the difference (for `revenue_per_user` and its horizon forms).
///
/// d = mean_v − mean_c and s = sqrt(var_v/n_v + var_c/n_c) with sample variances (n − 1);
/// the difference is taken as Normal(d, s²) (a flat prior), so
/// `chanceToWin` = Φ(d/s) and `expectedLoss` = E[max(−D, 0)] = s·φ(d/s) − d·Φ(−d/s).
public struct NormalBayesianComparison: Sendable, Equatable {
    public let difference: Double
    public let standardError: Double
    /// P(mean_variant > mean_control).
    public let chanceToWin: Double
    /// E[max(mean_control − mean_variant, 0)], in the unit of the values.
    public let expectedLoss: Double

    /// Throws when an arm has fewer than two values, or when both variances are 0 (s = 0: no spread to reason about).
    public init(control: SampleSummary, variant: SampleSummary) throws {
        let d = try variant.mean() - control.mean()
        let s = (try variant.variance() / Double(variant.count) + control.variance() / Double(control.count)).squareRoot()
        guard s > 0 else { throw StatisticsError.insufficientData("both samples have zero variance, so the normal approximation has no spread") }
        difference = d
        standardError = s
        let z = d / s
        chanceToWin = Normal.cdf(z)
        expectedLoss = max(0, s * Normal.pdf(z) - d * Normal.cdf(-z))
    }
}
