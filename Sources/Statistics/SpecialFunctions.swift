import Foundation

/// Log-gamma, log-beta and the regularised incomplete beta and gamma functions.
///
/// These are the building blocks of the t, chi-square and beta distributions.
/// Large arguments use Stirling's series for the ratio Γ(a)Γ(b)/Γ(a+b), so the
/// results keep about 1e-13 relative accuracy even when a + b is 1e7 (libm's
/// `lgamma` alone would lose six digits to cancellation there).
public enum SpecialFunctions {
    /// log Γ(x) for x > 0 (libm's `lgamma`).
    public static func logGamma(_ x: Double) -> Double { lgamma(x) }

    /// log B(a, b) = log Γ(a) + log Γ(b) − log Γ(a + b), for a, b > 0.
    public static func logBeta(_ a: Double, _ b: Double) -> Double {
        let small = min(a, b), large = max(a, b)
        if small >= 10 {
            // Stirling: B = sqrt(2π) a^(a-1/2) b^(b-1/2) (a+b)^(1/2-a-b) e^(δa+δb-δ(a+b)).
            let sum = small + large
            return 0.5 * log(2 * Double.pi) + (small - 0.5) * log(small / sum) + large * log1p(-small / sum)
                - 0.5 * log(large) + stirlingRemainder(small) + stirlingRemainder(large) - stirlingRemainder(sum)
        }
        return lgamma(small) + logGammaRatio(large, small)
    }

    /// log(Γ(b) / Γ(a + b)) without the cancellation of two large log-gammas.
    static func logGammaRatio(_ b: Double, _ a: Double) -> Double {
        if b < 10 { return lgamma(b) - lgamma(a + b) }
        let sum = a + b
        return -a * log(sum) - (b - 0.5) * log1p(a / b) + a + stirlingRemainder(b) - stirlingRemainder(sum)
    }

    /// δ(x) = log Γ(x) − [(x − 1/2) log x − x + log(2π)/2], for x >= 10.
    static func stirlingRemainder(_ x: Double) -> Double {
        let inverse = 1 / x, inverse2 = inverse * inverse
        // Stirling's series to the x^-13 term; the first omitted term is below 2e-16 at x = 10.
        let tail = 1.0 / 1188 - inverse2 * (691.0 / 360_360 - inverse2 * 3617.0 / 122_400)
        return inverse * (1.0 / 12 - inverse2 * (1.0 / 360 - inverse2 * (1.0 / 1260 - inverse2 * (1.0 / 1680 - inverse2 * tail))))
    }

    /// The regularised incomplete beta function I_x(a, b) for a, b > 0 and x in [0, 1].
    ///
    /// Returns NaN for arguments outside those ranges.
    public static func regularizedIncompleteBeta(_ x: Double, a: Double, b: Double) -> Double {
        incompleteBeta(x: x, y: 1 - x, a: a, b: b)
    }

    /// I_x(a, b) where the caller also supplies y = 1 − x computed without cancellation.
    static func incompleteBeta(x: Double, y: Double, a: Double, b: Double) -> Double {
        guard a > 0, b > 0, a.isFinite, b.isFinite, x >= 0, x <= 1, y >= 0, y <= 1 else { return .nan }
        if x == 0 { return 0 }
        if y == 0 { return 1 }
        if x > (a + 1) / (a + b + 2) {
            return 1 - incompleteBetaDirect(x: y, y: x, a: b, b: a)
        }
        return incompleteBetaDirect(x: x, y: y, a: a, b: b)
    }

    /// The continued fraction for I_x(a, b), which converges fast when x < (a + 1) / (a + b + 2).
    private static func incompleteBetaDirect(x: Double, y: Double, a: Double, b: Double) -> Double {
        let front = exp(logBetaFront(x: x, y: y, a: a, b: b))
        if front == 0 { return 0 }
        // Modified Lentz evaluation of 1 / (1 + d1 / (1 + d2 / (1 + ...))).
        let tiny = 1e-300
        var c = 1.0
        var d = 1 - (a + b) * x / (a + 1)
        if abs(d) < tiny { d = tiny }
        d = 1 / d
        var result = d
        var m = 1.0
        while m < 100_000 {
            let m2 = 2 * m
            var numerator = m * (b - m) * x / ((a + m2 - 1) * (a + m2))
            d = 1 + numerator * d; if abs(d) < tiny { d = tiny }
            c = 1 + numerator / c; if abs(c) < tiny { c = tiny }
            d = 1 / d
            result *= d * c
            numerator = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1))
            d = 1 + numerator * d; if abs(d) < tiny { d = tiny }
            c = 1 + numerator / c; if abs(c) < tiny { c = tiny }
            d = 1 / d
            let delta = d * c
            result *= delta
            if abs(delta - 1) < 1e-16 { break }
            m += 1
        }
        return front * result / a
    }

    /// log(x^a y^b / B(a, b)), the prefactor of the incomplete beta's continued fraction.
    static func logBetaFront(x: Double, y: Double, a: Double, b: Double) -> Double {
        if a >= 10 && b >= 10 {
            // Written around the mode so that the large terms cancel analytically:
            // x(a+b)/a = 1 + e/a and y(a+b)/b = 1 − e/b with e = xb − ya.
            let sum = a + b
            let e = x * b - y * a
            return a * log1p(e / a) + b * log1p(-e / b) + 0.5 * log(a * b / (2 * Double.pi * sum))
                - stirlingRemainder(a) - stirlingRemainder(b) + stirlingRemainder(sum)
        }
        // x and y are both accurate; take the log of the smaller one directly and of the larger
        // one as log1p of the smaller, so that b·log(y) with y near 1 and b = 1e6 keeps its digits.
        let logX = x <= y ? log(x) : log1p(-y)
        let logY = y <= x ? log(y) : log1p(-x)
        return a * logX + b * logY - logBeta(a, b)
    }

    /// The log of the beta density with parameters a, b at x in (0, 1).
    static func logBetaDensity(_ x: Double, a: Double, b: Double) -> Double {
        logBetaFront(x: x, y: 1 - x, a: a, b: b) - log(x) - log1p(-x)
    }

    /// The regularised lower incomplete gamma function P(a, x) for a > 0, x >= 0.
    public static func regularizedGammaP(_ a: Double, _ x: Double) -> Double {
        guard a > 0, a.isFinite, x >= 0, !x.isNaN else { return .nan }
        if x == 0 { return 0 }
        if x == .infinity { return 1 }
        return x < a + 1 ? gammaSeries(a, x) : 1 - gammaContinuedFraction(a, x)
    }

    /// The regularised upper incomplete gamma function Q(a, x) = 1 − P(a, x), accurate in the tail.
    public static func regularizedGammaQ(_ a: Double, _ x: Double) -> Double {
        guard a > 0, a.isFinite, x >= 0, !x.isNaN else { return .nan }
        if x == 0 { return 1 }
        if x == .infinity { return 0 }
        return x < a + 1 ? 1 - gammaSeries(a, x) : gammaContinuedFraction(a, x)
    }

    private static func gammaSeries(_ a: Double, _ x: Double) -> Double {
        var term = 1 / a, sum = term, denominator = a
        for _ in 0..<100_000 {
            denominator += 1
            term *= x / denominator
            sum += term
            if abs(term) < abs(sum) * 1e-17 { break }
        }
        return sum * exp(-x + a * log(x) - lgamma(a))
    }

    private static func gammaContinuedFraction(_ a: Double, _ x: Double) -> Double {
        let tiny = 1e-300
        var b = x + 1 - a
        var c = 1 / tiny
        var d = 1 / b
        var result = d
        var i = 1.0
        while i < 100_000 {
            let numerator = -i * (i - a)
            b += 2
            d = numerator * d + b; if abs(d) < tiny { d = tiny }
            c = b + numerator / c; if abs(c) < tiny { c = tiny }
            d = 1 / d
            let delta = d * c
            result *= delta
            if abs(delta - 1) < 1e-16 { break }
            i += 1
        }
        return exp(-x + a * log(x) - lgamma(a)) * result
    }
}
