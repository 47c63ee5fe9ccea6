import Testing
@testable import Statistics

/// Kaplan–Meier and the log-rank test against lifelines.
struct SurvivalTests {
    struct KMCase: Decodable {
        let times: [Double], events: [Bool], alpha: Double, at: [Double]
        let survival: [Double], lower: [Double], upper: [Double]
    }

    struct Group: Decodable { let times: [Double], events: [Bool] }
    struct LogRankCase: Decodable { let groups: [Group], statistic: Double, p_value: Double }

    static func observations(_ times: [Double], _ events: [Bool]) throws -> [SurvivalObservation] {
        try zip(times, events).map { try SurvivalObservation(time: $0, event: $1) }
    }

    // The estimate is a product of at most a few thousand factors (1e-13); the bounds add a
    // square root, a log and two exps of the Greenwood sum: 1e-11 relative, 1e-14 absolute.
    @Test func kaplanMeierMatchesLifelines() throws {
        let cases = try loadCases("km", as: KMCase.self)
        #expect(cases.count >= 200)
        #expect(cases.contains { $0.times.count <= 5 })
        #expect(cases.contains { !$0.events.contains(true) } && cases.contains { !$0.events.contains(false) })
        for c in cases {
            let curve = try KaplanMeier(Self.observations(c.times, c.events), alpha: c.alpha)
            for (i, t) in c.at.enumerated() {
                #expect(isClose(curve.survival(at: t), c.survival[i], relative: 1e-12, absolute: 1e-15), "S(\(t)) case n=\(c.times.count)")
                let interval = curve.interval(at: t)
                #expect(isClose(interval.lower, c.lower[i], relative: 1e-11, absolute: 1e-14), "lower(\(t)) n=\(c.times.count): \(interval.lower) vs \(c.lower[i])")
                #expect(isClose(interval.upper, c.upper[i], relative: 1e-11, absolute: 1e-14), "upper(\(t)) n=\(c.times.count): \(interval.upper) vs \(c.upper[i])")
            }
        }
    }

    // A quadratic form over a (k−1)×(k−1) covariance solved by elimination: 1e-10 relative on
    // the statistic, and the chi-square tail (1e-12) magnified by ~statistic/2 in the tail.
    @Test func logRankMatchesLifelines() throws {
        let cases = try loadCases("logrank", as: LogRankCase.self)
        #expect(cases.count >= 200)
        #expect(cases.contains { $0.groups.count > 2 })
        for c in cases {
            let test = try LogRankTest(groups: c.groups.map { try Self.observations($0.times, $0.events) })
            #expect(isClose(test.statistic, c.statistic, relative: 1e-10, absolute: 1e-12), "groups \(c.groups.count): \(test.statistic) vs \(c.statistic)")
            #expect(isClose(test.pValue, c.p_value, relative: 1e-8, absolute: 1e-14), "groups \(c.groups.count): \(test.pValue) vs \(c.p_value)")
            #expect(test.degreesOfFreedom == c.groups.count - 1)
        }
    }

    @Test func handWorkedCurve() throws {
        // Times 1, 2+, 3, 3, 4+ (+ = censored): S(1) = 4/5, S(3) = 4/5 · 1/3.
        let data = try Self.observations([1, 2, 3, 3, 4], [true, false, true, true, false])
        let curve = try KaplanMeier(data)
        #expect(curve.survival(at: 0.5) == 1)
        #expect(abs(curve.survival(at: 1) - 0.8) < 1e-15)
        #expect(abs(curve.survival(at: 2.9) - 0.8) < 1e-15)
        #expect(abs(curve.survival(at: 3) - 0.8 / 3) < 1e-15)
        #expect(curve.survival(at: [0, 1, 3, 7, 14, 30]).count == 6)
        #expect(curve.steps.map(\.atRisk) == [5, 4, 3, 1])
    }

    @Test func logRankWithoutEventsIsDefined() throws {
        let censored = try Self.observations([1, 2, 3], [false, false, false])
        let test = try LogRankTest(groups: [censored, censored])
        #expect(test.statistic == 0 && test.pValue == 1)
    }
}
