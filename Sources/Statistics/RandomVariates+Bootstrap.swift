import Foundation

extension RandomVariates {
    /// A standard normal draw (Marsaglia's polar method; the second value of the pair is dropped).
    public static func standardNormal(using generator: inout some RandomNumberGenerator) -> Double {
        while true {
            let u = 2 * unitInterval(using: &generator) - 1, v = 2 * unitInterval(using: &generator) - 1
            let s = u * u + v * v
            if s > 0 && s < 1 { return u * (-2 * log(s) / s).squareRoot() }
        }
    }

    /// A Beta(a, b) draw (a, b > 0), as the ratio of two gamma draws.
    public static func beta(_ a: Double, _ b: Double, using generator: inout some RandomNumberGenerator) -> Double {
        let x = gamma(shape: a, using: &generator), y = gamma(shape: b, using: &generator)
        return x + y > 0 ? x / (x + y) : (a >= b ? 1 : 0)
    }

    /// A Gamma(shape, 1) draw (Marsaglia and Tsang 2000; below shape 1, Gamma(shape + 1) · U^(1/shape)).
    public static func gamma(shape: Double, using generator: inout some RandomNumberGenerator) -> Double {
        if shape < 1 {
            return gamma(shape: shape + 1, using: &generator) * pow(unitInterval(using: &generator), 1 / shape)
        }
        let d = shape - 1.0 / 3, c = 1 / (9 * d).squareRoot()
        while true {
            let x = standardNormal(using: &generator)
            let v0 = 1 + c * x
            guard v0 > 0 else { continue }
            let v = v0 * v0 * v0
            let u = unitInterval(using: &generator)
            if log(u) < 0.5 * x * x + d - d * v + d * log(v) { return d * v }
        }
    }

    /// An exact Binomial(trials, probability) draw whose cost grows with log(trials), not trials.
    ///
    /// Splits on an order statistic (Knuth, TAOCP 3.4.1): the a-th smallest of n uniforms is
    /// Beta(a, n − a + 1); the uniforms below it are uniform on (0, X), those above on (X, 1), so the
    /// count below p is a smaller binomial on one side. Small remainders use `binomial`'s geometric gaps.
    public static func binomialBySplitting(trials: Int, probability: Double, using generator: inout some RandomNumberGenerator) throws -> Int {
        try Check.nonNegative(trials, "trials")
        try Check.probability(probability, "probability")
        var n = trials, p = probability, below = 0
        while n > 64 && p > 0 && p < 1 {
            let a = n / 2 + 1, b = n + 1 - a
            let ga = gamma(shape: Double(a), using: &generator), gb = gamma(shape: Double(b), using: &generator)
            let x = ga / (ga + gb)
            if x >= p {
                n = a - 1
                p = p / x
            } else {
                below += a
                n = b - 1
                p = (p - x) / (1 - x)
            }
            p = min(max(p, 0), 1)
        }
        return below + (try binomial(trials: n, probability: p, using: &generator))
    }

    /// A Multinomial(trials, weights / Σ weights) draw: one binomial per category, in turn.
    public static func multinomial(trials: Int, weights: [Double], using generator: inout some RandomNumberGenerator) throws -> [Int] {
        var remainingWeight = weights.reduce(0, +)
        var remaining = trials
        var counts = [Int](repeating: 0, count: weights.count)
        for (i, w) in weights.enumerated() {
            guard remaining > 0, remainingWeight > 0 else { break }
            let share = i == weights.count - 1 ? 1 : min(max(w / remainingWeight, 0), 1)
            let c = try binomialBySplitting(trials: remaining, probability: share, using: &generator)
            counts[i] = c
            remaining -= c
            remainingWeight -= w
        }
        return counts
    }
}
