import Foundation

/// The post-stratified difference of two arms (Miratrix, Sekhon and Yu 2013): the arms
/// are compared inside each stratum (a combination of attributes known at exposure) and the
/// differences weighted by the stratum's share of the two arms' users. Where the attributes
/// explain the outcome, the variance is smaller than the plain difference's.
///
/// d = Σ w_s (mean_v,s − mean_c,s), variance Σ w_s² (var_v,s/n_v,s + var_c,s/n_c,s), with
/// p(1 − p) for rates and the sample variance (n − 1) for means.
public enum PostStratification {
    /// How a stratum's variance is estimated.
    public enum Spread: Sendable {
        /// A rate: p(1 − p).
        case bernoulli
        /// A mean: the sample variance (n − 1).
        case sample
    }

    /// One stratum's two samples.
    public struct Stratum: Sendable, Equatable {
        public var control: SampleSummary
        public var variant: SampleSummary

        public init(control: SampleSummary, variant: SampleSummary) {
            self.control = control
            self.variant = variant
        }

        var users: Int { control.count + variant.count }

        func merged(with other: Stratum) throws -> Stratum {
            Stratum(control: try control.merged(with: other.control), variant: try variant.merged(with: other.variant))
        }
    }

    /// The pooling: strata with fewer than `minimum` users in either arm are pooled into one;
    /// a pool still under `minimum` in either arm joins the largest stratum (by users of both arms).
    /// The kept strata stay in their order; the pool, if it stands alone, comes last.
    public static func pool(_ strata: [Stratum], minimum: Int = 50) throws -> [Stratum] {
        func small(_ s: Stratum) -> Bool { s.control.count < minimum || s.variant.count < minimum }
        var kept = strata.filter { !small($0) }
        let smallOnes = strata.filter(small)
        guard var pool = smallOnes.first else { return kept }
        for s in smallOnes.dropFirst() { pool = try pool.merged(with: s) }
        if small(pool), let largest = kept.indices.max(by: { kept[$0].users < kept[$1].users }) {
            kept[largest] = try kept[largest].merged(with: pool)
        } else {
            kept.append(pool)
        }
        return kept
    }

    /// The estimate from strata already pooled (`pool`).
    public struct Estimate: Sendable, Equatable {
        /// Σ w_s (mean_v,s − mean_c,s).
        public let difference: Double
        /// Σ w_s² (var_v,s/n_v,s + var_c,s/n_c,s).
        public let variance: Double
        /// Σ w_s mean_c,s: the control's mean re-weighted to the pooled strata.
        public let controlMean: Double
        /// Σ w_s mean_v,s.
        public let variantMean: Double
        /// Σ w_s² var_c,s/n_c,s and Σ w_s² var_v,s/n_v,s: the two parts of `variance`.
        public let controlMeanVariance: Double
        public let variantMeanVariance: Double
        /// How many strata were used.
        public let strata: Int

        public var standardError: Double { variance.squareRoot() }

        /// d ± z·se.
        public func interval(alpha: Double = 0.05) throws -> Interval {
            try Check.alpha(alpha)
            let half = Normal.upperQuantile(alpha / 2) * standardError
            return Interval(lower: difference - half, upper: difference + half)
        }

        /// Two-sided z-test of d = 0; 1 when there is no spread at all.
        public var pValue: Double {
            guard variance > 0 else { return 1 }
            return min(1, 2 * Normal.survival(abs(difference) / standardError))
        }

        /// d / Σ w_s mean_c,s, or nil when that mean is not positive.
        public var relativeLift: Double? {
            controlMean > 0 ? difference / controlMean : nil
        }

        /// The delta-method interval of the lift m_v/m_c − 1 (the arms independent):
        /// lift ± z·sqrt(Var m_v / m_c² + m_v² Var m_c / m_c⁴); nil when the lift is.
        public func relativeInterval(alpha: Double = 0.05) throws -> Interval? {
            try Check.alpha(alpha)
            guard let lift = relativeLift else { return nil }
            let m = controlMean
            let se = (variantMeanVariance / (m * m) + variantMean * variantMean * controlMeanVariance / (m * m * m * m)).squareRoot()
            let half = Normal.upperQuantile(alpha / 2) * se
            return Interval(lower: lift - half, upper: lift + half)
        }

        /// The delta method on the log of the ratio of the re-weighted means, so it never goes below
        /// −100% (the report's relative interval, as `WelchTest` and the Katz interval of
        /// `ProportionComparison` give it; with one Bernoulli stratum it is the Katz interval):
        /// exp(ln(m_v/m_c) ± z·sqrt(Var m_v / m_v² + Var m_c / m_c²)) − 1; nil unless both means are positive.
        public func logRelativeInterval(alpha: Double = 0.05) throws -> Interval? {
            try Check.alpha(alpha)
            guard controlMean > 0, variantMean > 0 else { return nil }
            let z = Normal.upperQuantile(alpha / 2)
            let logRatio = log(variantMean / controlMean)
            let logError = (variantMeanVariance / (variantMean * variantMean) + controlMeanVariance / (controlMean * controlMean)).squareRoot()
            return Interval(lower: exp(logRatio - z * logError) - 1, upper: exp(logRatio + z * logError) - 1)
        }

        /// Chance that the variant's mean is above the control's and the expected shortfall,
        /// from Normal(d, variance) as `NormalBayesianComparison` reads a difference; nil without spread.
        public var chanceToWin: Double? {
            guard variance > 0 else { return nil }
            return Normal.cdf(difference / standardError)
        }

        public var expectedLoss: Double? {
            guard variance > 0 else { return nil }
            let s = standardError, z = difference / s
            return max(0, s * Normal.pdf(z) - difference * Normal.cdf(-z))
        }
    }

    /// The post-stratified estimate over `strata` (pass them through `pool` first). Throws when a
    /// stratum has an empty arm, or (for `.sample`) an arm with fewer than two values.
    public static func estimate(_ strata: [Stratum], spread: Spread) throws -> Estimate {
        guard !strata.isEmpty else { throw StatisticsError.insufficientData("no strata") }
        let total = Double(strata.reduce(0) { $0 + $1.users })
        var d = 0.0, mc = 0.0, mv = 0.0, vc = 0.0, vv = 0.0
        for s in strata {
            let w = Double(s.users) / total
            let (meanC, varC) = try moments(s.control, spread)
            let (meanV, varV) = try moments(s.variant, spread)
            d += w * (meanV - meanC)
            mc += w * meanC
            mv += w * meanV
            vc += w * w * varC / Double(s.control.count)
            vv += w * w * varV / Double(s.variant.count)
        }
        return Estimate(difference: d, variance: vc + vv, controlMean: mc, variantMean: mv,
                        controlMeanVariance: vc, variantMeanVariance: vv, strata: strata.count)
    }

    private static func moments(_ sample: SampleSummary, _ spread: Spread) throws -> (mean: Double, variance: Double) {
        let mean = try sample.mean()
        switch spread {
        case .bernoulli: return (mean, max(0, mean * (1 - mean)))
        case .sample: return (mean, try sample.variance())
        }
    }
}

extension SampleSummary {
    /// Both samples as one.
    public func merged(with other: SampleSummary) throws -> SampleSummary {
        try SampleSummary(count: count + other.count, sum: sum + other.sum, sumOfSquares: sumOfSquares + other.sumOfSquares)
    }
}
