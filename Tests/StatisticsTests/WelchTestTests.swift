import Testing
@testable import Statistics

/// Welch's t-test from sufficient statistics against scipy `ttest_ind(equal_var=False)`.
struct WelchTestTests {
    struct Case: Decodable {
        let control: [Double], variant: [Double], alpha: Double
        let t: Double, p_value: Double, df: Double, ci: [Double], diff: Double
        let lift: Double?, lift_ci: [Double]?
    }

    static func summary(_ v: [Double]) throws -> SampleSummary {
        try SampleSummary(count: Int(v[0]), sum: v[1], sumOfSquares: v[2])
    }

    // scipy computes the variance from the raw values in two passes; we get it from Σx and Σx²,
    // which loses digits in proportion to mean²/variance (≤ ~1e2 here): 1e-11 relative on the
    // variance. t, df and the interval inherit that; p in the tail is further magnified by ~t²,
    // hence 1e-8 relative on p with a 1e-15 floor. The t quantile itself is good to 1e-10 (df ≤ 1e7).
    @Test func matchesScipy() throws {
        let cases = try loadCases("welch", as: Case.self)
        #expect(cases.count >= 200)
        #expect(cases.contains { $0.control[0] == 1e7 } && cases.contains { $0.control[0] <= 5 })
        for c in cases {
            let result = try WelchTest(control: Self.summary(c.control), variant: Self.summary(c.variant), alpha: c.alpha)
            #expect(isClose(result.meanDifference, c.diff, relative: 1e-11, absolute: 1e-12), "\(c)")
            #expect(isClose(result.tStatistic ?? .nan, c.t, relative: 1e-9, absolute: 1e-12), "\(c)")
            #expect(isClose(result.degreesOfFreedom ?? .nan, c.df, relative: 1e-9), "\(c)")
            #expect(isClose(result.pValue, c.p_value, relative: 1e-8, absolute: 1e-15), "\(c) p = \(result.pValue)")
            #expect(isClose(result.interval.lower, c.ci[0], relative: 1e-9, absolute: 1e-12), "\(c)")
            #expect(isClose(result.interval.upper, c.ci[1], relative: 1e-9, absolute: 1e-12), "\(c)")
            // Same inputs and formula on both sides (the Python side from the same sums): 1e-11.
            if let lift = c.lift {
                #expect(isClose(result.relativeLift ?? .nan, lift, relative: 1e-11, absolute: 1e-13), "\(c)")
            } else {
                #expect(result.relativeLift == nil, "\(c)")
            }
            // The log-scale interval never goes below −100%; null unless both means are positive.
            if let ci = c.lift_ci {
                #expect(isClose(result.relativeInterval?.lower ?? .nan, ci[0], relative: 1e-11, absolute: 1e-13), "\(c)")
                #expect(isClose(result.relativeInterval?.upper ?? .nan, ci[1], relative: 1e-11, absolute: 1e-13), "\(c)")
                #expect((result.relativeInterval?.lower ?? -2) > -1, "\(c)")
            } else {
                #expect(result.relativeInterval == nil, "\(c)")
            }
        }
    }

    @Test func summaryFromValues() throws {
        let s = try SampleSummary(values: [1, 2, 3, 4])
        #expect(s.count == 4 && s.sum == 10 && s.sumOfSquares == 30)
        #expect(try s.mean() == 2.5)
        #expect(abs(try s.variance() - 5.0 / 3) < 1e-15)
    }

    @Test func zeroVarianceArms() throws {
        let zeros = try SampleSummary(count: 10, sum: 0, sumOfSquares: 0)
        let same = try WelchTest(control: zeros, variant: zeros)
        #expect(same.pValue == 1 && same.tStatistic == nil && same.interval == Interval(lower: 0, upper: 0))
        #expect(same.relativeLift == nil)
        let fives = try SampleSummary(count: 10, sum: 50, sumOfSquares: 250)
        let different = try WelchTest(control: zeros, variant: fives)
        #expect(different.pValue == 0 && different.meanDifference == 5)
    }
}
