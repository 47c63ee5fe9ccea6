/// The chi-square distribution with k > 0 degrees of freedom.
///
/// NaN in, NaN out; public tests validate before calling.
public enum ChiSquare {
    /// P(X <= x).
    public static func cdf(_ x: Double, degreesOfFreedom k: Double) -> Double {
        guard x >= 0 else { return x.isNaN ? .nan : 0 }
        return SpecialFunctions.regularizedGammaP(k / 2, x / 2)
    }

    /// P(X > x), the p-value of a chi-square statistic; accurate far into the tail.
    public static func survival(_ x: Double, degreesOfFreedom k: Double) -> Double {
        guard x >= 0 else { return x.isNaN ? .nan : 1 }
        return SpecialFunctions.regularizedGammaQ(k / 2, x / 2)
    }
}
