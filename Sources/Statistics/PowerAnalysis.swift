import Foundation

/// Users needed per variant to detect a relative lift in a conversion rate.
///
/// The formula is the classic one for the pooled two-sided two-proportion z-test
/// (Fleiss, without continuity correction), the same as statsmodels
/// `samplesize_proportions_2indep_onetail(diff, prop2, power, alpha=α, alternative="two-sided")`:
///
///     n = (z(1−α/2)·sqrt(2·p̄(1−p̄)) + z(power)·sqrt(p₁q₁ + p₂q₂))² / (p₂ − p₁)²,  p̄ = (p₁ + p₂)/2
///
/// With `variants` K > 2 the K − 1 comparisons against the control are
/// Bonferroni-corrected: each uses α/(K − 1). (The report itself uses Holm, which is
/// never less powerful, so the figure is slightly conservative.)
public struct SampleSize: Sendable, Equatable, Codable {
    public let baselineRate: Double
    /// The rate the variant would have: baseline × (1 + relative MDE).
    public let targetRate: Double
    public let relativeMinimumDetectableEffect: Double
    public let alpha: Double
    /// The per-comparison α after the Bonferroni correction.
    public let comparisonAlpha: Double
    public let power: Double
    public let variants: Int
    /// The formula's value before rounding up.
    public let exactUsersPerVariant: Double
    /// Users per variant, rounded up.
    public let usersPerVariant: Int
    /// usersPerVariant × variants.
    public let totalUsers: Int

    /// Throws unless 0 < baseline < 1, mde ≠ 0 with 0 < baseline·(1 + mde) < 1,
    /// 0 < alpha < 1, 0 < power < 1 and variants >= 2.
    public init(baseline: Double, relativeMDE mde: Double, alpha: Double = 0.05, power: Double = 0.8, variants: Int = 2) throws {
        guard baseline.isFinite, baseline > 0, baseline < 1 else {
            throw StatisticsError.invalidArgument(parameter: "baseline", reason: "must be strictly between 0 and 1, got \(baseline)")
        }
        try Check.finite(mde, "mde")
        guard mde != 0 else { throw StatisticsError.invalidArgument(parameter: "mde", reason: "must not be 0") }
        let target = baseline * (1 + mde)
        guard target > 0, target < 1 else {
            throw StatisticsError.invalidArgument(parameter: "mde", reason: "gives a target rate \(target) outside (0, 1)")
        }
        try Check.alpha(alpha)
        try Check.alpha(power, "power")
        guard variants >= 2 else { throw StatisticsError.invalidArgument(parameter: "variants", reason: "must be at least 2, got \(variants)") }
        let comparisonAlpha = alpha / Double(variants - 1)
        let zAlpha = Normal.upperQuantile(comparisonAlpha / 2)
        let zPower = Normal.quantile(power)
        let pooled = (baseline + target) / 2
        let nullSD = (2 * pooled * (1 - pooled)).squareRoot()
        let alternativeSD = (baseline * (1 - baseline) + target * (1 - target)).squareRoot()
        let root = max(0, zAlpha * nullSD + zPower * alternativeSD)
        let n = root * root / ((target - baseline) * (target - baseline))
        guard n < Double(Int.max / variants) else {
            throw StatisticsError.invalidArgument(parameter: "mde", reason: "is too small: the sample size overflows")
        }
        // Round up, forgiving round-off just above an integer.
        let users = Int((n * (1 - 1e-12)).rounded(.up))
        self.baselineRate = baseline
        self.targetRate = target
        self.relativeMinimumDetectableEffect = mde
        self.alpha = alpha
        self.comparisonAlpha = comparisonAlpha
        self.power = power
        self.variants = variants
        self.exactUsersPerVariant = n
        self.usersPerVariant = max(1, users)
        self.totalUsers = max(1, users) * variants
    }

    /// The power of the pooled two-sided z-test with `usersPerVariant` users in each arm
    /// (statsmodels `power_proportions_2indep`; both rejection regions counted, the far one is negligible).
    public static func power(baseline: Double, relativeMDE mde: Double, usersPerVariant: Int, alpha: Double = 0.05, variants: Int = 2) throws -> Double {
        _ = try SampleSize(baseline: baseline, relativeMDE: mde, alpha: alpha, power: 0.5, variants: variants)
        guard usersPerVariant > 0 else {
            throw StatisticsError.invalidArgument(parameter: "usersPerVariant", reason: "must be positive, got \(usersPerVariant)")
        }
        let target = baseline * (1 + mde)
        let zAlpha = Normal.upperQuantile(alpha / Double(variants - 1) / 2)
        let pooled = (baseline + target) / 2
        let n = Double(usersPerVariant)
        let nullSE = (2 * pooled * (1 - pooled) / n).squareRoot()
        let alternativeSE = ((baseline * (1 - baseline) + target * (1 - target)) / n).squareRoot()
        let effect = abs(target - baseline)
        return Normal.cdf((effect - zAlpha * nullSE) / alternativeSE) + Normal.cdf((-effect - zAlpha * nullSE) / alternativeSE)
    }
}

extension SampleSize {
    /// Users per variant to detect a relative change `mde` in a mean (revenue per user), for the
    /// two-sided z-test of two means whose variance is the control's:
    ///
    ///     n = 2σ²·(z(1 − α′/2) + z(power))² / (mde·μ)²,  α′ = α/(K − 1) (Bonferroni, as for rates)
    ///
    /// (statsmodels `NormalIndPower().solve_power(effect_size=mde·μ/σ, alpha=α′, power=power, ratio=1)`
    /// less its far-tail term). Throws unless μ and σ are positive and finite and the other
    /// arguments are as for rates.
    public static func usersPerVariant(mean: Double, standardDeviation sd: Double, relativeMDE mde: Double,
                                       alpha: Double = 0.05, power: Double = 0.8, variants: Int = 2) throws -> Int {
        guard mean.isFinite, mean > 0 else { throw StatisticsError.invalidArgument(parameter: "mean", reason: "must be positive, got \(mean)") }
        guard sd.isFinite, sd > 0 else { throw StatisticsError.invalidArgument(parameter: "standardDeviation", reason: "must be positive, got \(sd)") }
        try Check.finite(mde, "mde")
        guard mde != 0 else { throw StatisticsError.invalidArgument(parameter: "mde", reason: "must not be 0") }
        try Check.alpha(alpha)
        try Check.alpha(power, "power")
        guard variants >= 2 else { throw StatisticsError.invalidArgument(parameter: "variants", reason: "must be at least 2, got \(variants)") }
        let z = Normal.upperQuantile(alpha / Double(variants - 1) / 2) + Normal.quantile(power)
        let effect = mde * mean
        let n = 2 * sd * sd * z * z / (effect * effect)
        guard n < Double(Int.max / variants) else { throw StatisticsError.invalidArgument(parameter: "mde", reason: "is too small: the sample size overflows") }
        return max(1, Int((n * (1 - 1e-12)).rounded(.up)))
    }
}
