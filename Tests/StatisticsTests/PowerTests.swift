import Testing
@testable import Statistics

/// Sample size and power against statsmodels.
struct PowerTests {
    struct Case: Decodable {
        let baseline: Double, mde: Double, alpha: Double, power: Double, variants: Int
        let n: Double, users_given: Int, achieved_power: Double
    }

    // A closed formula around two normal quantiles (1e-16 each): 1e-12 relative on n. The rounded
    // count must be the ceiling of statsmodels' n unless n is within 1e-9 of an integer.
    @Test func matchesStatsmodels() throws {
        let cases = try loadCases("power", as: Case.self)
        #expect(cases.count >= 200)
        #expect(cases.contains { $0.variants > 2 } && cases.contains { $0.mde < 0 })
        for c in cases {
            let size = try SampleSize(baseline: c.baseline, relativeMDE: c.mde, alpha: c.alpha, power: c.power, variants: c.variants)
            #expect(isClose(size.exactUsersPerVariant, c.n, relative: 1e-12), "\(c) got \(size.exactUsersPerVariant)")
            let nearInteger = abs(c.n - c.n.rounded()) < 1e-9 * c.n
            if !nearInteger { #expect(size.usersPerVariant == Int(c.n.rounded(.up)), "\(c)") }
            #expect(size.totalUsers == size.usersPerVariant * c.variants)
            let achieved = try SampleSize.power(baseline: c.baseline, relativeMDE: c.mde, usersPerVariant: c.users_given,
                                                alpha: c.alpha, variants: c.variants)
            #expect(isClose(achieved, c.achieved_power, relative: 1e-11, absolute: 1e-15), "\(c) got \(achieved)")
        }
    }

    @Test func textbookExample() throws {
        // 10% baseline, +20% relative: the well-known ~3,841 users per arm at 5% / 80%.
        let size = try SampleSize(baseline: 0.10, relativeMDE: 0.20)
        #expect(size.usersPerVariant == 3841)
        #expect(size.totalUsers == 7682)
        // More variants need more users per arm (Bonferroni).
        let three = try SampleSize(baseline: 0.10, relativeMDE: 0.20, variants: 3)
        #expect(three.usersPerVariant > size.usersPerVariant && three.comparisonAlpha == 0.025)
        // The power at the computed size is at least the target.
        let power = try SampleSize.power(baseline: 0.10, relativeMDE: 0.20, usersPerVariant: size.usersPerVariant)
        #expect(power >= 0.8 && power < 0.801)
    }

    /// Revenue per user (power from the control's mean and variance): against statsmodels 0.15.0
    /// `NormalIndPower().solve_power(effect_size=mde·μ/σ, alpha=α/(K−1), power=0.8, ratio=1)`, whose exact
    /// values were 9861.58, 9623.85 and 336354.28 (its far-tail term is below one user here).
    @Test func revenueSampleSizeMatchesStatsmodels() throws {
        #expect(try SampleSize.usersPerVariant(mean: 7.78, standardDeviation: 19.5, relativeMDE: 0.1) == 9862)
        #expect(try SampleSize.usersPerVariant(mean: 2.0, standardDeviation: 9.0, relativeMDE: 0.2, variants: 3) == 9624)
        #expect(try SampleSize.usersPerVariant(mean: 0.5, standardDeviation: 3.0, relativeMDE: 0.05, alpha: 0.01) == 336355)
        #expect(throws: StatisticsError.self) { try SampleSize.usersPerVariant(mean: 0, standardDeviation: 1, relativeMDE: 0.1) }
    }
}
