import Foundation

/// Always-valid monitoring of a difference of two proportions: the normal-mixture mSPRT.
///
/// Feed the cumulative counts at every look (for example once a day) to `update`.
/// With θ̂ = p_variant − p_control and its plug-in variance s² = p₁q₁/n₁ + p₂q₂/n₂,
/// the mixture likelihood ratio against H₀: θ = 0, with θ ~ N(0, τ²) under the
/// alternative, is
///
///     Λ = sqrt(s² / (s² + τ²)) · exp(τ² θ̂² / (2 s² (s² + τ²)))
///
/// (Johari, Pekelis & Walsh, "Always valid inference", 2017, written for unequal arms).
/// The always-valid p-value is the running minimum of min(1, 1/Λ) across looks and the
/// confidence sequence is the running intersection of {θ : Λ(θ) < 1/α}, so stopping
/// the first time p < α keeps the false-positive rate at or below α however often one looks.
///
/// `mixingVariance` τ² is on the scale of the rate difference; the default 1e-4
/// (τ = 1 percentage point) suits conversion rates of a few percent. Choose τ near
/// the size of effect you expect: too small or too large only costs power, never validity.
public struct SequentialTest: Sendable, Equatable {
    /// The result after one look.
    public struct Look: Sendable, Equatable, Codable {
        /// p_variant − p_control at this look.
        public let difference: Double
        /// log Λ, the log mixture likelihood ratio at this look (0 when s² = 0); kept in logs because Λ overflows.
        public let logLikelihoodRatio: Double
        /// The always-valid p-value so far: non-increasing across looks.
        public let pValue: Double
        /// The confidence sequence so far, clamped to [−1, 1]: nested across looks.
        public let interval: Interval
        /// pValue < alpha.
        public let rejected: Bool
    }

    public static let defaultMixingVariance = 1e-4

    /// τ² for an experiment: the squared absolute effect it hopes to see (`minimumEffect`, relative,
    /// times the control's rate), or `defaultMixingVariance` when that is 0. Reports' sequential
    /// monitoring and safeguards both use it, so their intervals agree.
    public static func mixingVariance(controlRate: Double, minimumEffect: Double) -> Double {
        let effect = abs(minimumEffect * controlRate)
        return effect > 0 ? effect * effect : defaultMixingVariance
    }

    public let mixingVariance: Double
    public let alpha: Double
    /// The looks seen so far.
    public private(set) var looks: [Look] = []

    /// Throws unless τ² > 0 and 0 < alpha < 1.
    public init(mixingVariance: Double = SequentialTest.defaultMixingVariance, alpha: Double = 0.05) throws {
        try Check.positive(mixingVariance, "mixingVariance")
        try Check.alpha(alpha)
        self.mixingVariance = mixingVariance
        self.alpha = alpha
    }

    /// Adds a look with the cumulative counts so far and returns its result.
    ///
    /// When both rates are 0 or 1 (s² = 0) the look carries no evidence: its own
    /// p-value is 1 and its interval is [−1, 1]. If the plug-in intervals of two looks
    /// ever fail to overlap (possible only through the plug-in variance), the newest
    /// interval is kept.
    @discardableResult
    public mutating func update(control: Proportion, variant: Proportion) -> Look {
        update(difference: variant.rate - control.rate, variance: control.varianceOfRate + variant.varianceOfRate)
    }

    /// Adds a look given the difference estimate and its variance s² directly: for an estimate
    /// that is not two pooled proportions (a bandit's period-stratified difference).
    @discardableResult
    public mutating func update(difference: Double, variance s2: Double) -> Look {
        let tau2 = mixingVariance
        var logRatio = 0.0
        var current = Interval(lower: -1, upper: 1)
        if s2 > 0 {
            logRatio = 0.5 * log(s2 / (s2 + tau2)) + tau2 * difference * difference / (2 * s2 * (s2 + tau2))
            let halfWidth = (2 * s2 * (s2 + tau2) / tau2 * (log(1 / alpha) + 0.5 * log1p(tau2 / s2))).squareRoot()
            current = Interval(lower: max(-1, difference - halfWidth), upper: min(1, difference + halfWidth))
        }
        let lookP = exp(-max(0, logRatio))  // min(1, 1/Λ)
        let pValue = min(looks.last?.pValue ?? 1, lookP)
        let interval = looks.last.flatMap { $0.interval.intersection(current) } ?? current
        let look = Look(difference: difference, logLikelihoodRatio: logRatio, pValue: pValue, interval: interval, rejected: pValue < alpha)
        looks.append(look)
        return look
    }

    /// Runs the test over a series of cumulative looks `(control, variant)` and returns every look's result.
    public static func monitor(_ series: [(control: Proportion, variant: Proportion)],
                               mixingVariance: Double = defaultMixingVariance, alpha: Double = 0.05) throws -> [Look] {
        var test = try SequentialTest(mixingVariance: mixingVariance, alpha: alpha)
        for look in series { test.update(control: look.control, variant: look.variant) }
        return test.looks
    }
}
