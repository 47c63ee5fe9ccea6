import Foundation

/// Student's t distribution with `degreesOfFreedom` ν > 0 (fractional ν allowed, as Welch's test needs).
///
/// Functions return NaN for ν <= 0 or NaN input; public tests validate before calling.
/// ν = +infinity is the standard normal. Accuracy: about 1e-13 relative for ν < 1000,
/// degrading like 1e-16·ν (the incomplete beta's continued fraction cancels when x = ν/(ν+t²)
/// is within 1/ν of 1) to about 1e-10 at ν = 1e7 — far below any statistical meaning.
public enum StudentT {
    /// P(T <= t).
    public static func cdf(_ t: Double, degreesOfFreedom nu: Double) -> Double {
        guard !t.isNaN, !nu.isNaN, nu > 0 else { return .nan }
        if nu == .infinity { return Normal.cdf(t) }
        if t.isInfinite { return t > 0 ? 1 : 0 }
        let tail = upperTail(abs(t), nu)
        return t > 0 ? 1 - tail : tail
    }

    /// P(T > t), accurate far into the upper tail.
    public static func survival(_ t: Double, degreesOfFreedom nu: Double) -> Double {
        cdf(-t, degreesOfFreedom: nu)
    }

    /// P(T > t) for t >= 0: ½ I_{ν/(ν+t²)}(ν/2, ½).
    private static func upperTail(_ t: Double, _ nu: Double) -> Double {
        let t2 = t * t
        let x = nu / (nu + t2), y = t2 / (nu + t2)
        return 0.5 * SpecialFunctions.incompleteBeta(x: x, y: y, a: nu / 2, b: 0.5)
    }

    /// The density at t.
    public static func pdf(_ t: Double, degreesOfFreedom nu: Double) -> Double {
        guard nu > 0, !t.isNaN else { return .nan }
        if nu == .infinity { return Normal.pdf(t) }
        // Γ((ν+1)/2) / (Γ(ν/2) √(νπ)) (1 + t²/ν)^(-(ν+1)/2)
        let logNormaliser = -SpecialFunctions.logGammaRatio(nu / 2, 0.5) - 0.5 * log(nu * Double.pi)
        return exp(logNormaliser - (nu + 1) / 2 * log1p(t * t / nu))
    }

    /// The value t with P(T <= t) = p.
    ///
    /// Returns ∓infinity for p = 0 or 1 and NaN for p outside [0, 1]. Solved by
    /// safeguarded Newton steps on the tail probability to about 1e-14 relative.
    public static func quantile(_ p: Double, degreesOfFreedom nu: Double) -> Double {
        guard p.isFinite, p >= 0, p <= 1, nu > 0, !nu.isNaN else { return .nan }
        if nu == .infinity { return Normal.quantile(p) }
        if p == 0 { return -.infinity }
        if p == 1 { return .infinity }
        if p == 0.5 { return 0 }
        let q = min(p, 1 - p)  // target upper-tail probability for t > 0
        let value = positiveQuantile(tail: q, nu)
        return p < 0.5 ? -value : value
    }

    /// The t > 0 with P(T > t) = q, q in (0, 0.5).
    private static func positiveQuantile(tail q: Double, _ nu: Double) -> Double {
        // Cornish-Fisher start from the normal quantile.
        let z = Normal.upperQuantile(q)
        var t = z + (z * z * z + z) / (4 * nu) + (5 * pow(z, 5) + 16 * z * z * z + 3 * z) / (96 * nu * nu)
        if !(t > 0) || !t.isFinite { t = max(z, 1) }
        var lo = 0.0, hi = t
        while upperTail(hi, nu) > q {
            lo = hi
            hi *= 2
            if hi > 1e300 { return .infinity }
        }
        for _ in 0..<200 {
            let f = upperTail(t, nu) - q
            if f == 0 { return t }
            if f > 0 { lo = max(lo, t) } else { hi = min(hi, t) }
            let density = pdf(t, degreesOfFreedom: nu)
            var next = t + f / density
            if !(next > lo && next < hi) || !next.isFinite { next = 0.5 * (lo + hi) }
            if abs(next - t) <= 1e-15 * t || hi - lo <= 1e-15 * hi { return next }
            t = next
        }
        return t
    }
}
