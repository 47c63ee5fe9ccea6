import Testing
@testable import Statistics

/// Post-stratification and Cochran's Q against Fixtures/make_segments.py (numpy, statsmodels OLS
/// with full treatment-by-stratum interactions, scipy).
struct PostStratificationCase: Decodable {
    struct Summary: Decodable {
        let count: Int
        let sum: Double
        let sum_of_squares: Double
        var sample: SampleSummary { get throws { try SampleSummary(count: count, sum: sum, sumOfSquares: sum_of_squares) } }
    }
    struct StratumCase: Decodable { let control: Summary; let variant: Summary }
    let name: String
    let spread: String
    let strata: [StratumCase]
    let pooled_users: [[Int]]
    let difference: Double
    let ols_difference: Double
    let variance: Double
    let control_mean: Double
    let ci: [Double]
    let p_value: Double
    let relative_lift: Double?
    let relative_ci: [Double]?
}

struct CochranCase: Decodable {
    let estimates: [Double]
    let variances: [Double]
    let q: Double
    let df: Int
    let p_value: Double
    let pooled: Double
}

@Test func postStratificationMatchesNumpyAndOLS() throws {
    let cases = try loadCases("poststrat", as: PostStratificationCase.self)
    #expect(cases.count == 14)
    for c in cases {
        let strata = try c.strata.map { PostStratification.Stratum(control: try $0.control.sample, variant: try $0.variant.sample) }
        let pooled = try PostStratification.pool(strata)
        #expect(pooled.map { [$0.control.count, $0.variant.count] } == c.pooled_users, "\(c.name)")
        let e = try PostStratification.estimate(pooled, spread: c.spread == "bernoulli" ? .bernoulli : .sample)
        #expect(isClose(e.difference, c.difference, relative: 1e-9, absolute: 1e-12), "\(c.name) d")
        #expect(isClose(e.difference, c.ols_difference, relative: 1e-8, absolute: 1e-12), "\(c.name) OLS")
        #expect(isClose(e.variance, c.variance, relative: 1e-8), "\(c.name) variance")
        #expect(isClose(e.controlMean, c.control_mean, relative: 1e-9), "\(c.name) control mean")
        let ci = try e.interval()
        #expect(isClose(ci.lower, c.ci[0], relative: 1e-8, absolute: 1e-12) && isClose(ci.upper, c.ci[1], relative: 1e-8, absolute: 1e-12), "\(c.name) ci")
        #expect(isClose(e.pValue, c.p_value, relative: 1e-7, absolute: 1e-14), "\(c.name) p \(e.pValue) \(c.p_value)")
        if let lift = c.relative_lift, let rci = c.relative_ci {
            #expect(isClose(try #require(e.relativeLift), lift, relative: 1e-8), "\(c.name) lift")
            let interval = try #require(try e.relativeInterval())
            #expect(isClose(interval.lower, rci[0], relative: 1e-7, absolute: 1e-12) && isClose(interval.upper, rci[1], relative: 1e-7, absolute: 1e-12), "\(c.name) relative ci")
        }
    }
}

/// With one stratum the post-stratified figures are the plain difference's.
@Test func oneStratumIsThePlainComparison() throws {
    let control = try SampleSummary(count: 1000, sum: 120, sumOfSquares: 120)
    let variant = try SampleSummary(count: 1100, sum: 150, sumOfSquares: 150)
    let e = try PostStratification.estimate([.init(control: control, variant: variant)], spread: .bernoulli)
    let plain = try ProportionComparison(control: Proportion(count: 120, total: 1000), variant: Proportion(count: 150, total: 1100))
    #expect(isClose(e.difference, plain.absoluteDifference, relative: 1e-12))
    let ci = try e.interval()
    #expect(isClose(ci.lower, plain.absoluteInterval.lower, relative: 1e-12) && isClose(ci.upper, plain.absoluteInterval.upper, relative: 1e-12))
}

/// The report's relative interval of an adjusted comparison is on the log scale: with one Bernoulli
/// stratum it is the Katz interval of the plain comparison, and it needs both means positive.
@Test func oneStratumLogRelativeIntervalIsKatz() throws {
    let control = try SampleSummary(count: 1000, sum: 120, sumOfSquares: 120)
    let variant = try SampleSummary(count: 1100, sum: 150, sumOfSquares: 150)
    let e = try PostStratification.estimate([.init(control: control, variant: variant)], spread: .bernoulli)
    let plain = try ProportionComparison(control: Proportion(count: 120, total: 1000), variant: Proportion(count: 150, total: 1100))
    let log = try #require(try e.logRelativeInterval())
    let katz = try #require(plain.relativeInterval)
    #expect(isClose(log.lower, katz.lower, relative: 1e-12) && isClose(log.upper, katz.upper, relative: 1e-12))
    let none = try PostStratification.estimate([.init(control: control, variant: try SampleSummary(count: 1100, sum: 0, sumOfSquares: 0))], spread: .bernoulli)
    #expect(try none.logRelativeInterval() == nil)
}

@Test func anEmptyArmCannotBeEstimated() throws {
    let empty = try SampleSummary(count: 0, sum: 0, sumOfSquares: 0), some = try SampleSummary(count: 5, sum: 1, sumOfSquares: 1)
    #expect(throws: StatisticsError.self) { try PostStratification.estimate([.init(control: empty, variant: some)], spread: .bernoulli) }
    #expect(throws: StatisticsError.self) { try PostStratification.estimate([], spread: .sample) }
}

@Test func cochranQMatchesScipy() throws {
    let cases = try loadCases("cochran", as: CochranCase.self)
    #expect(cases.count == 15)
    for c in cases {
        let q = try #require(CochranQ(estimates: Array(zip(c.estimates, c.variances)).map { ($0.0, $0.1) }))
        #expect(isClose(q.statistic, c.q, relative: 1e-9, absolute: 1e-12))
        #expect(q.degreesOfFreedom == c.df)
        #expect(isClose(q.pValue, c.p_value, relative: 1e-8, absolute: 1e-15), "\(q.pValue) \(c.p_value)")
        #expect(isClose(q.pooledEstimate, c.pooled, relative: 1e-9, absolute: 1e-15))
    }
}

@Test func cochranQNeedsTwoEstimatesWithSpread() {
    #expect(CochranQ(estimates: [(0.1, 0.01)]) == nil)
    #expect(CochranQ(estimates: [(0.1, 0.01), (0.0, 0)]) == nil)
    #expect(CochranQ(estimates: [(0.1, 0.01), (0.0, 0), (0.2, 0.02)])?.degreesOfFreedom == 1)
}
