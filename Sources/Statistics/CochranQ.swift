/// Cochran's Q test of heterogeneity: do several independent estimates of one effect
/// (a comparison's absolute difference in each segment) differ by more than their noise?
///
/// With inverse-variance weights w_i = 1/v_i and the weighted mean d̄ = Σ w_i d_i / Σ w_i,
/// Q = Σ w_i (d_i − d̄)², chi-square with (k − 1) degrees of freedom under a common effect.
public struct CochranQ: Sendable, Equatable {
    public let statistic: Double
    public let degreesOfFreedom: Int
    public let pValue: Double
    /// The inverse-variance weighted mean of the estimates.
    public let pooledEstimate: Double

    /// Nil with fewer than two estimates whose variance is positive and finite (an estimate without
    /// spread, such as a difference of two zero rates, has no weight to give and is left out).
    public init?(estimates: [(estimate: Double, variance: Double)]) {
        let usable = estimates.filter { $0.estimate.isFinite && $0.variance.isFinite && $0.variance > 0 }
        guard usable.count >= 2 else { return nil }
        var sumW = 0.0, sumWD = 0.0
        for e in usable {
            sumW += 1 / e.variance
            sumWD += e.estimate / e.variance
        }
        let mean = sumWD / sumW
        let q = usable.reduce(0.0) { $0 + ($1.estimate - mean) * ($1.estimate - mean) / $1.variance }
        statistic = q
        degreesOfFreedom = usable.count - 1
        pValue = ChiSquare.survival(q, degreesOfFreedom: Double(usable.count - 1))
        pooledEstimate = mean
    }
}
