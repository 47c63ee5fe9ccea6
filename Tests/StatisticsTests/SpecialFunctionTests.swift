import Testing
@testable import Statistics

/// Special functions against scipy.special (special.json, ≥ 200 cases per function).
struct SpecialFunctionTests {
    struct Case: Decodable {
        let fn: String
        let x: Double?, p: Double?, df: Double?, a: Double?, b: Double?
        let expected: Double
        /// "mpmath" (40 digits, effectively exact) or "scipy" (used where mpmath does not converge).
        let oracle: String

        /// scipy's own error for beta parameters near 1e6 reaches a few 1e-9 (measured against mpmath
        /// where mpmath converges), so cases it had to answer are compared at 1e-8.
        func tolerance(_ tight: Double) -> Double { oracle == "mpmath" ? tight : max(tight, 1e-8) }
    }

    static let cases: [Case] = (try? loadCases("special")) ?? []

    @Test func fixtureHasEnoughCasesPerFunction() {
        let counts = Dictionary(grouping: Self.cases, by: \.fn).mapValues(\.count)
        for fn in ["normal_cdf", "normal_quantile", "t_cdf", "t_quantile", "chi2_sf", "betainc", "betaln", "gamma_p", "gamma_q"] {
            #expect(counts[fn, default: 0] >= 200, "\(fn)")
        }
    }

    // erfc is good to an ulp, but rounding x/√2 perturbs the argument by 1e-16·x, which moves
    // Φ(x) by a relative 2x²·1e-16 in the tail (3e-13 at x = −38); the tolerance follows that.
    // AS241 is good to about 1e-16 relative.
    @Test func normal() {
        for c in Self.cases where c.fn == "normal_cdf" {
            let value = Normal.cdf(c.x!)
            let tolerance = c.tolerance(1e-14 + 4e-16 * c.x! * c.x!)
            #expect(isClose(value, c.expected, relative: tolerance, absolute: 1e-300), "Φ(\(c.x!)) = \(value), oracle \(c.expected)")
        }
        for c in Self.cases where c.fn == "normal_quantile" {
            let value = Normal.quantile(c.p!)
            #expect(isClose(value, c.expected, relative: c.tolerance(1e-13)), "Φ⁻¹(\(c.p!)) = \(value), oracle \(c.expected)")
        }
    }

    // The t CDF goes through I_x(ν/2, ½) with x = ν/(ν+t²) near 1. The continued fraction's first
    // terms then cancel to about (1 + t²)/ν of their size, so the relative error grows like
    // 1e-16·ν: ~1e-13 for ν < 1e3, ~1e-10 at ν = 1e7 (the brief's "~1e-10 where doubles allow").
    // The tolerance is 1e-12 + 3e-17·ν for the CDF and the quantile alike (the quantile's
    // sensitivity p/(t·pdf) is below 1 except near p = ½, where the absolute floor applies).
    static func tTolerance(_ c: Case) -> Double { c.tolerance(1e-12 + 3e-17 * c.df!) }

    @Test func studentT() {
        for c in Self.cases where c.fn == "t_cdf" {
            let value = StudentT.cdf(c.x!, degreesOfFreedom: c.df!)
            #expect(isClose(value, c.expected, relative: Self.tTolerance(c), absolute: 1e-300), "T(\(c.x!); \(c.df!)) = \(value), oracle \(c.expected)")
        }
        for c in Self.cases where c.fn == "t_quantile" {
            let value = StudentT.quantile(c.p!, degreesOfFreedom: c.df!)
            #expect(isClose(value, c.expected, relative: Self.tTolerance(c), absolute: 1e-14), "T⁻¹(\(c.p!); \(c.df!)) = \(value), oracle \(c.expected)")
        }
    }

    @Test func chiSquareSurvival() {
        for c in Self.cases where c.fn == "chi2_sf" {
            let value = ChiSquare.survival(c.x!, degreesOfFreedom: c.df!)
            #expect(isClose(value, c.expected, relative: c.tolerance(1e-12), absolute: 1e-300), "Q(\(c.x!); \(c.df!)) = \(value), oracle \(c.expected)")
        }
    }

    // Parameters up to 1e7: the Stirling-based prefactor keeps ~1e-12 relative accuracy where
    // plain lgamma differences would lose six digits; the exponent a·log(x) + … is O(1e3) at
    // 3 standard deviations, so 1e-11 is what doubles allow. Values below 1e-280 are compared absolutely.
    @Test func incompleteBetaAndLogBeta() {
        for c in Self.cases where c.fn == "betainc" {
            let value = SpecialFunctions.regularizedIncompleteBeta(c.x!, a: c.a!, b: c.b!)
            #expect(isClose(value, c.expected, relative: c.tolerance(1e-11), absolute: 1e-280), "I(\(c.x!); \(c.a!), \(c.b!)) = \(value), oracle \(c.expected)")
        }
        for c in Self.cases where c.fn == "betaln" {
            let value = SpecialFunctions.logBeta(c.a!, c.b!)
            #expect(isClose(value, c.expected, relative: c.tolerance(1e-14), absolute: 1e-14), "lnB(\(c.a!), \(c.b!)) = \(value), oracle \(c.expected)")
        }
    }

    @Test func incompleteGamma() {
        for c in Self.cases where c.fn == "gamma_p" {
            let value = SpecialFunctions.regularizedGammaP(c.a!, c.x!)
            #expect(isClose(value, c.expected, relative: c.tolerance(1e-12), absolute: 1e-300), "P(\(c.a!), \(c.x!)) = \(value), oracle \(c.expected)")
        }
        for c in Self.cases where c.fn == "gamma_q" {
            let value = SpecialFunctions.regularizedGammaQ(c.a!, c.x!)
            #expect(isClose(value, c.expected, relative: c.tolerance(1e-12), absolute: 1e-300), "Q(\(c.a!), \(c.x!)) = \(value), oracle \(c.expected)")
        }
    }

    @Test func edgeValues() {
        #expect(Normal.quantile(0) == -.infinity)
        #expect(Normal.quantile(1) == .infinity)
        #expect(Normal.quantile(-0.1).isNaN)
        #expect(Normal.quantile(.nan).isNaN)
        #expect(Normal.quantile(0.5) == 0)
        #expect(StudentT.quantile(0.5, degreesOfFreedom: 3) == 0)
        #expect(StudentT.cdf(1, degreesOfFreedom: -1).isNaN)
        #expect(StudentT.cdf(.infinity, degreesOfFreedom: 4) == 1)
        #expect(StudentT.cdf(1.5, degreesOfFreedom: .infinity) == Normal.cdf(1.5))
        #expect(ChiSquare.survival(0, degreesOfFreedom: 3) == 1)
        #expect(SpecialFunctions.regularizedIncompleteBeta(0, a: 2, b: 3) == 0)
        #expect(SpecialFunctions.regularizedIncompleteBeta(1, a: 2, b: 3) == 1)
        #expect(SpecialFunctions.regularizedIncompleteBeta(0.5, a: 0, b: 3).isNaN)
    }
}
