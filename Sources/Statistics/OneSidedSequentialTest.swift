import Foundation

/// Always-valid one-sided monitoring of harm: the one-sided normal-mixture mSPRT.
///
/// θ is the harm (for a lower-is-better rate p_arm − p_control, else p_control − p_arm); the null
/// hypothesis is θ ≤ 0 (no harm) and only θ > 0 is ever concluded. With θ̂ and its variance s² at a
/// look, the likelihood ratio of θ against 0 is exp((θ θ̂ − θ²/2) / s²); mixed over a normal
/// N(0, τ²) truncated to the harmful side (density 2 φ(θ/τ)/τ on θ > 0) it is
///
///     Λ = 2 · sqrt(s² / (s² + τ²)) · exp(τ² θ̂² / (2 s² (s² + τ²))) · Φ(θ̂ τ / (s sqrt(s² + τ²)))
///
/// Λ is a nonnegative martingale when θ = 0 and a supermartingale when θ < 0 (each component's
/// expectation is exp(θ' θ / s²) ≤ 1), so by Ville's inequality the chance that it ever reaches
/// 1/α, however often one looks, is at most α under no harm. The always-valid p-value is the running
/// minimum of min(1, 1/Λ). The lower confidence bound is the smallest θ₀ not rejected by the same
/// test shifted to θ₀ (θ̂ − θ₀ in place of θ̂): θ̂ − d*, where d* solves log Λ(d*) = log(1/α) (Λ
/// grows with θ̂, so d* is unique); across looks the bound is the running maximum. Harm is concluded
/// when the bound is above 0, which is the same event as p < α.
///
/// Against the two-sided mixture (`SequentialTest`) the factor 2 Φ(·) is the whole gain: for a
/// harmful θ̂ it tends to 2, halving the evidence needed, as a one-sided fixed test halves its level.
public struct OneSidedSequentialTest: Sendable, Equatable {
    /// The result after one look.
    public struct Look: Sendable, Equatable {
        /// θ̂ at this look (positive is harmful).
        public let difference: Double
        /// log Λ at this look (0 when s² = 0).
        public let logLikelihoodRatio: Double
        /// The always-valid p-value so far: non-increasing across looks.
        public let pValue: Double
        /// The always-valid lower confidence bound on θ so far (−1 when a look carries no evidence): non-decreasing.
        public let lowerBound: Double
        /// pValue < alpha (the bound is above 0).
        public let rejected: Bool
    }

    /// The test's name in reports.
    public static let name = "one_sided_msprt"

    /// τ as a multiple of the minimum harm on the rate scale (docs/Safeguards.md says why 1).
    public static let mixingScale = 1.0

    /// τ² for a safeguard: (τ/δ · `minimumHarm` × the control's rate)², δ the smallest harm worth stopping
    /// for on the rate scale. A control rate of 0 (no evidence of scale yet) reads as the smallest rate
    /// one user in a thousand gives, so τ² stays positive.
    public static func mixingVariance(controlRate: Double, minimumHarm: Double) -> Double {
        let delta = mixingScale * abs(minimumHarm) * max(controlRate, 1e-3)
        return delta * delta
    }

    public let mixingVariance: Double
    public let alpha: Double
    public private(set) var looks: [Look] = []

    /// Throws unless τ² > 0 and 0 < alpha < 1.
    public init(mixingVariance: Double, alpha: Double = 0.05) throws {
        try Check.positive(mixingVariance, "mixingVariance")
        try Check.alpha(alpha)
        self.mixingVariance = mixingVariance
        self.alpha = alpha
    }

    /// log Λ for a harm estimate `difference` with variance `s2` (> 0) and mixing variance `tau2`.
    public static func logLikelihoodRatio(difference x: Double, variance s2: Double, mixingVariance tau2: Double) -> Double {
        let total = s2 + tau2
        let u = x * (tau2 / (s2 * total)).squareRoot()
        return log(2) + 0.5 * log(s2 / total) + tau2 * x * x / (2 * s2 * total) + logNormalCDF(u)
    }

    /// d* with log Λ(d*) = log(1/alpha): θ̂ − d* is the look's lower confidence bound. Always positive.
    public static func boundaryDistance(variance s2: Double, mixingVariance tau2: Double, alpha: Double) -> Double {
        let target = log(1 / alpha)
        // Λ ≥ the two-sided mixture's ratio for θ̂ ≥ 0 (2Φ ≥ 1), so the two-sided half-width bounds d* above;
        // at θ̂ = 0, Λ = sqrt(s²/(s²+τ²)) < 1 ≤ 1/alpha, so 0 bounds it below.
        var low = 0.0
        var high = (2 * s2 * (s2 + tau2) / tau2 * (target + 0.5 * log1p(tau2 / s2))).squareRoot()
        for _ in 0..<200 {
            let mid = 0.5 * (low + high)
            if mid <= low || mid >= high { break }
            if logLikelihoodRatio(difference: mid, variance: s2, mixingVariance: tau2) < target { low = mid } else { high = mid }
        }
        return 0.5 * (low + high)
    }

    /// Adds a look: the harm estimate θ̂ and its variance s².
    @discardableResult
    public mutating func update(difference: Double, variance s2: Double) -> Look {
        var logRatio = 0.0
        var bound = -1.0
        if s2 > 0 {
            logRatio = Self.logLikelihoodRatio(difference: difference, variance: s2, mixingVariance: mixingVariance)
            bound = max(-1, difference - Self.boundaryDistance(variance: s2, mixingVariance: mixingVariance, alpha: alpha))
        }
        let lookP = exp(-max(0, logRatio))
        let pValue = min(looks.last?.pValue ?? 1, lookP)
        let lowerBound = max(looks.last?.lowerBound ?? -1, bound)
        let look = Look(difference: difference, logLikelihoodRatio: logRatio, pValue: pValue, lowerBound: lowerBound, rejected: pValue < alpha)
        looks.append(look)
        return look
    }

    /// Adds a look with the cumulative counts so far, for a rate where a higher arm rate is the harm
    /// (`higherIsHarm`, e.g. a cancel rate) or a lower one is.
    @discardableResult
    public mutating func update(control: Proportion, arm: Proportion, higherIsHarm: Bool) -> Look {
        let d = arm.rate - control.rate
        return update(difference: higherIsHarm ? d : -d, variance: control.varianceOfRate + arm.varianceOfRate)
    }

    /// log Φ(u), accurate in the far lower tail (Φ itself underflows below about −38).
    static func logNormalCDF(_ u: Double) -> Double {
        if u > -37 { return log(Normal.cdf(u)) }
        // Mills ratio: Φ(u) = φ(u)/|u| · (1 − 1/u² + 3/u⁴ − 15/u⁶ …).
        let v = 1 / (u * u)
        return -0.5 * u * u - log(-u) - 0.5 * log(2 * Double.pi) + log1p(-v * (1 - 3 * v * (1 - 5 * v)))
    }
}
