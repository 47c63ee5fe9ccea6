import Foundation

/// Beta-Binomial comparison of a variant with the control: chance to win and expected loss.
///
/// Posteriors are Beta(prior.α + c, prior.β + n − c) (Beta(1, 1) by default). The
/// probabilities are one-dimensional integrals computed by adaptive quadrature to
/// about 1e-12 absolute (no Monte Carlo, no normal approximation), so results are
/// deterministic and hold for tiny and huge samples alike.
public struct BayesianComparison: Sendable, Equatable, Codable {
    /// P(p_variant > p_control).
    public let chanceToWin: Double
    /// E[max(p_control − p_variant, 0)]: the expected rate given up by shipping the variant.
    public let expectedLoss: Double

    public init(control: Proportion, variant: Proportion, prior: BetaDistribution = .uniform) {
        let c = prior.posterior(after: control), v = prior.posterior(after: variant)
        chanceToWin = Self.probability(v, exceeds: c)
        expectedLoss = Self.expectedShortfall(of: v, below: c)
    }

    /// In the metric's good direction: for a lower-is-better rate (cancels, refunds), the chance the
    /// variant's rate is lower, P(p_variant < p_control), and the expected excess E[max(p_variant − p_control, 0)].
    public init(control: Proportion, variant: Proportion, lowerIsBetter: Bool, prior: BetaDistribution = .uniform) {
        if lowerIsBetter {
            self.init(control: variant, variant: control, prior: prior)
        } else {
            self.init(control: control, variant: variant, prior: prior)
        }
    }

    /// P(X > Y) for independent beta variables.
    public static func probability(_ x: BetaDistribution, exceeds y: BetaDistribution) -> Double {
        let value: Double
        // Integrate against the narrower density; the other enters through its CDF.
        if y.variance <= x.variance {
            value = Quadrature.integrate({ t in y.pdf(t) * x.survival(t) }, points: y.quadraturePoints(others: [x]), tolerance: 1e-13)
        } else {
            value = Quadrature.integrate({ t in x.pdf(t) * y.cdf(t) }, points: x.quadraturePoints(others: [y]), tolerance: 1e-13)
        }
        return min(1, max(0, value))
    }

    /// E[max(Y − X, 0)], using E[Y·1{Y>X}] = mean(Y)·P(Y⁺ > X) with Y⁺ = Beta(α_Y + 1, β_Y).
    public static func expectedShortfall(of x: BetaDistribution, below y: BetaDistribution) -> Double {
        let yPlus = BetaDistribution(uncheckedAlpha: y.alpha + 1, beta: y.beta)
        let xPlus = BetaDistribution(uncheckedAlpha: x.alpha + 1, beta: x.beta)
        let value = y.mean * probability(yPlus, exceeds: x) - x.mean * probability(y, exceeds: xPlus)
        return max(0, value)
    }

    /// P(arm i has the highest rate) for each arm, in the order given; the values sum to 1 up to ~1e-10.
    ///
    /// Throws when fewer than two arms are given.
    public static func chanceToBeBest(_ arms: [Proportion], prior: BetaDistribution = .uniform) throws -> [Double] {
        guard arms.count >= 2 else { throw StatisticsError.insufficientData("chance to be best needs at least two arms, got \(arms.count)") }
        let posteriors = arms.map { prior.posterior(after: $0) }
        return posteriors.indices.map { i in
            let others = posteriors.indices.filter { $0 != i }.map { posteriors[$0] }
            let value = Quadrature.integrate({ t in
                var product = posteriors[i].pdf(t)
                for other in others {
                    if product == 0 { break }
                    product *= other.cdf(t)
                }
                return product
            }, points: posteriors[i].quadraturePoints(others: others), tolerance: 1e-13)
            return min(1, max(0, value))
        }
    }
}
