import Testing
@testable import Statistics

/// Wilson intervals and variant-vs-control comparisons against statsmodels.
struct ProportionTests {
    struct WilsonCase: Decodable { let count: Int, total: Int, alpha: Double, lower: Double, upper: Double }

    struct ComparisonCase: Decodable {
        let control_count: Int, control_total: Int, variant_count: Int, variant_total: Int, alpha: Double
        let diff: Double, diff_ci: [Double]
        let z: Double?, p_value: Double?
        let lift: Double?, lift_ci: [Double]?
    }

    // Closed-form arithmetic on doubles; the only approximation is the normal quantile (1e-16),
    // so 1e-12 relative (with a 1e-15 absolute floor for bounds at 0) is a genuine check.
    @Test func wilsonMatchesStatsmodels() throws {
        let cases = try loadCases("wilson", as: WilsonCase.self)
        #expect(cases.count >= 200)
        #expect(cases.contains { $0.total == 10_000_000 } && cases.contains { $0.total <= 5 })
        #expect(cases.contains { $0.count == 0 } && cases.contains { $0.count == $0.total })
        for c in cases {
            let interval = try Proportion(count: c.count, total: c.total).wilsonInterval(alpha: c.alpha)
            #expect(isClose(interval.lower, c.lower, relative: 1e-12, absolute: 1e-15), "\(c)")
            #expect(isClose(interval.upper, c.upper, relative: 1e-12, absolute: 1e-15), "\(c)")
            #expect(interval.lower >= 0 && interval.upper <= 1)
        }
    }

    // The z statistic of two rates is a difference of nearly equal numbers when the rates are
    // close; with n = 1e7 that costs up to ~1e-10 relative in z, and p = 2Φ(−|z|) magnifies
    // relative error by |z|² in the tail, hence 1e-9 relative on p with a 1e-14 floor.
    @Test func comparisonMatchesStatsmodels() throws {
        let cases = try loadCases("comparison", as: ComparisonCase.self)
        #expect(cases.count >= 200)
        #expect(cases.contains { $0.control_total != $0.variant_total })
        for c in cases {
            let control = try Proportion(count: c.control_count, total: c.control_total)
            let variant = try Proportion(count: c.variant_count, total: c.variant_total)
            let result = try ProportionComparison(control: control, variant: variant, alpha: c.alpha)
            #expect(isClose(result.absoluteDifference, c.diff, relative: 1e-12, absolute: 1e-15), "\(c)")
            #expect(isClose(result.absoluteInterval.lower, c.diff_ci[0], relative: 1e-11, absolute: 1e-14), "\(c)")
            #expect(isClose(result.absoluteInterval.upper, c.diff_ci[1], relative: 1e-11, absolute: 1e-14), "\(c)")
            if let p = c.p_value, let z = c.z {
                #expect(isClose(result.pValue, p, relative: 1e-9, absolute: 1e-14), "\(c) p = \(result.pValue)")
                #expect(isClose(result.zStatistic ?? .nan, z, relative: 1e-10, absolute: 1e-12), "\(c)")
            } else {
                // statsmodels answers NaN here; the documented result is p = 1 and no z.
                #expect(result.pValue == 1 && result.zStatistic == nil, "\(c)")
            }
            if let lift = c.lift, let ci = c.lift_ci {
                #expect(isClose(result.relativeLift ?? .nan, lift, relative: 1e-12, absolute: 1e-15), "\(c)")
                #expect(isClose(result.relativeInterval?.lower ?? .nan, ci[0], relative: 1e-11, absolute: 1e-14), "\(c)")
                #expect(isClose(result.relativeInterval?.upper ?? .nan, ci[1], relative: 1e-11, absolute: 1e-14), "\(c)")
            } else {
                #expect(result.relativeLift == nil && result.relativeInterval == nil, "\(c)")
            }
        }
    }

    @Test func knownValues() throws {
        // 350 / 10000 (3.5% paid conversion): Wilson [0.031573, 0.038784].
        let interval = try Proportion(count: 350, total: 10_000).wilsonInterval()
        #expect(abs(interval.lower - 0.0315728) < 1e-7 && abs(interval.upper - 0.0387843) < 1e-7)
        let zero = try Proportion(count: 0, total: 3).wilsonInterval()
        #expect(zero.lower == 0 && zero.upper > 0.5)
        let all = try Proportion(count: 3, total: 3).wilsonInterval()
        #expect(all.upper == 1 && all.lower < 0.5)
    }
}
