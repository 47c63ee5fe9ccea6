import Foundation

/// The standard normal distribution: CDF, survival function and quantile.
///
/// The CDF uses libm's `erfc`, so both tails keep full relative accuracy; the
/// quantile is Wichura's AS241 (PPND16), accurate to about 1e-16 relative.
public enum Normal {
    /// P(Z <= x). Returns 0 or 1 for infinite `x`; NaN in gives NaN out.
    public static func cdf(_ x: Double) -> Double {
        0.5 * erfc(-x / 2.0.squareRoot())
    }

    /// P(Z > x), accurate in the upper tail (no `1 - cdf` cancellation).
    public static func survival(_ x: Double) -> Double {
        0.5 * erfc(x / 2.0.squareRoot())
    }

    /// The density of the standard normal at `x`.
    public static func pdf(_ x: Double) -> Double {
        exp(-0.5 * x * x) / (2 * Double.pi).squareRoot()
    }

    /// The value z with P(Z <= z) = p (AS241).
    ///
    /// Returns `-infinity` for p = 0 and `+infinity` for p = 1; callers that need a
    /// finite answer must pass p strictly inside (0, 1). NaN or p outside [0, 1] gives NaN.
    public static func quantile(_ p: Double) -> Double {
        guard p.isFinite, p >= 0, p <= 1 else { return .nan }
        if p == 0 { return -.infinity }
        if p == 1 { return .infinity }
        let q = p - 0.5
        if abs(q) <= 0.425 {
            let r = 0.180625 - q * q
            return q * poly(r, numeratorCentral) / poly(r, denominatorCentral)
        }
        var r = q < 0 ? p : 1 - p
        r = (-log(r)).squareRoot()
        let value: Double
        if r <= 5 {
            r -= 1.6
            value = poly(r, numeratorIntermediate) / poly(r, denominatorIntermediate)
        } else {
            r -= 5
            value = poly(r, numeratorTail) / poly(r, denominatorTail)
        }
        return q < 0 ? -value : value
    }

    /// The upper quantile z with P(Z > z) = p, accurate for tiny p.
    public static func upperQuantile(_ p: Double) -> Double { -quantile(p) }

    /// Horner evaluation with coefficients from the constant term upward.
    private static func poly(_ x: Double, _ c: [Double]) -> Double {
        var result = 0.0
        for coefficient in c.reversed() { result = result * x + coefficient }
        return result
    }

    private static let numeratorCentral: [Double] = [
        3.3871328727963666080e0, 1.3314166789178437745e+2, 1.9715909503065514427e+3, 1.3731693765509461125e+4,
        4.5921953931549871457e+4, 6.7265770927008700853e+4, 3.3430575583588128105e+4, 2.5090809287301226727e+3,
    ]
    private static let denominatorCentral: [Double] = [
        1.0, 4.2313330701600911252e+1, 6.8718700749205790830e+2, 5.3941960214247511077e+3,
        2.1213794301586595867e+4, 3.9307895800092710610e+4, 2.8729085735721942674e+4, 5.2264952788528545610e+3,
    ]
    private static let numeratorIntermediate: [Double] = [
        1.42343711074968357734e0, 4.63033784615654529590e0, 5.76949722146069140550e0, 3.64784832476320460504e0,
        1.27045825245236838258e0, 2.41780725177450611770e-1, 2.27238449892691845833e-2, 7.74545014278341407640e-4,
    ]
    private static let denominatorIntermediate: [Double] = [
        1.0, 2.05319162663775882187e0, 1.67638483018380384940e0, 6.89767334985100004550e-1,
        1.48103976427480074590e-1, 1.51986665636164571966e-2, 5.47593808499534494600e-4, 1.05075007164441684324e-9,
    ]
    private static let numeratorTail: [Double] = [
        6.65790464350110377720e0, 5.46378491116411436990e0, 1.78482653991729133580e0, 2.96560571828504891230e-1,
        2.65321895265761230930e-2, 1.24266094738807843860e-3, 2.71155556874348757815e-5, 2.01033439929228813265e-7,
    ]
    private static let denominatorTail: [Double] = [
        1.0, 5.99832206555887937690e-1, 1.36929880922735805310e-1, 1.48753612908506148525e-2,
        7.86869131145613259100e-4, 1.84631831751005468180e-5, 1.42151175831644588870e-7, 2.04426310338993978564e-15,
    ]
}
