import Testing
@testable import Statistics

/// The one-sided mSPRT of safeguards against a reference that integrates the half-normal mixture
/// numerically (one_sided_msprt.json, made by Fixtures/make_one_sided_msprt.py); its level and power
/// are checked by simulation in SafeguardsTests.
struct OneSidedSequentialTestTests {
    struct Expected: Decodable { let log_ratio: Double, p_value: Double, lower_bound: Double }
    struct Case: Decodable { let looks: [[Int]], higher_is_harm: Bool, tau2: Double, alpha: Double, expected: [Expected] }

    // The reference's quadrature and root finder are good to about 1e-12; the closed form to rounding.
    @Test func matchesTheNumericalMixture() throws {
        let cases = try loadCases("one_sided_msprt", as: Case.self)
        #expect(cases.count >= 150)
        var rejections = 0
        for c in cases {
            var test = try OneSidedSequentialTest(mixingVariance: c.tau2, alpha: c.alpha)
            for (look, expected) in zip(c.looks, c.expected) {
                let result = test.update(control: try Proportion(count: look[0], total: look[1]),
                                         arm: try Proportion(count: look[2], total: look[3]), higherIsHarm: c.higher_is_harm)
                #expect(isClose(result.logLikelihoodRatio, expected.log_ratio, relative: 1e-9, absolute: 1e-10), "\(look) \(c.tau2)")
                #expect(isClose(result.pValue, expected.p_value, relative: 1e-9, absolute: 1e-300), "\(look)")
                #expect(isClose(result.lowerBound, expected.lower_bound, relative: 1e-9, absolute: 1e-11), "\(look)")
                #expect(result.rejected == (result.lowerBound > 0), "\(look): p \(result.pValue), bound \(result.lowerBound)")
                if result.rejected { rejections += 1 }
            }
            #expect(test.looks.count == c.looks.count)
        }
        // The fixture has harmful and harmless series: both outcomes are exercised.
        #expect(rejections > 0)
    }

    @Test func onlyHarmIsConcluded() throws {
        // A large benefit is no evidence of harm: p stays 1 and the bound far below 0.
        var test = try OneSidedSequentialTest(mixingVariance: 0.04 * 0.04, alpha: 0.05)
        let benefit = test.update(control: try Proportion(count: 400, total: 1000), arm: try Proportion(count: 100, total: 1000), higherIsHarm: true)
        #expect(benefit.pValue == 1 && !benefit.rejected && benefit.lowerBound < -0.3)
        let harm = test.update(control: try Proportion(count: 200, total: 1000), arm: try Proportion(count: 300, total: 1000), higherIsHarm: true)
        #expect(harm.rejected && harm.lowerBound > 0 && harm.lowerBound < 0.1)
        // Two-sided at the same level and mixing needs more evidence for the same harm.
        var twoSided = try SequentialTest(mixingVariance: 0.04 * 0.04, alpha: 0.05)
        let same = twoSided.update(control: try Proportion(count: 200, total: 1000), variant: try Proportion(count: 300, total: 1000))
        #expect(same.interval.lower < harm.lowerBound)
    }

    @Test func farTailStaysFinite() {
        // A benefit of 100 standard errors: log Φ(−99.5) ≈ −4,950 cancels the exponent; scipy's quadrature gives −7.1336476061.
        let ll = OneSidedSequentialTest.logLikelihoodRatio(difference: -1, variance: 1e-4, mixingVariance: 1e-2)
        #expect(isClose(ll, -7.133647606137062, relative: 1e-9))
        // Both sides of the switch to the asymptotic series agree (scipy: log Φ(−37.00001) − log Φ(−36.99999) = −7.4054e-4).
        let inside = OneSidedSequentialTest.logNormalCDF(-36.99999), outside = OneSidedSequentialTest.logNormalCDF(-37.00001)
        #expect(isClose(outside - inside, -0.0007405397537922909, relative: 1e-6))
    }

    @Test func mixingFollowsTheMinimumHarm() {
        #expect(abs(OneSidedSequentialTest.mixingVariance(controlRate: 0.2, minimumHarm: 0.2) - 0.0016) < 1e-15)
        #expect(OneSidedSequentialTest.mixingVariance(controlRate: 0, minimumHarm: 0.2) > 0)
    }
}
