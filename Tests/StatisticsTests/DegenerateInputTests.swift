import Testing
@testable import Statistics

/// Bad or empty input throws `StatisticsError` or gives the documented result; never NaN or a crash.
struct DegenerateInputTests {
    func parameter(_ body: () throws -> Void) -> String? {
        do { try body() } catch let StatisticsError.invalidArgument(parameter, _) { return parameter } catch { return "other: \(error)" }
        return nil
    }

    @Test func proportions() throws {
        #expect(parameter { _ = try Proportion(count: -1, total: 10) } == "count")
        #expect(parameter { _ = try Proportion(count: 11, total: 10) } == "count")
        #expect(parameter { _ = try Proportion(count: 0, total: 0) } == "total")
        #expect(parameter { _ = try Proportion(count: 0, total: -3) } == "total")
        let p = try Proportion(count: 1, total: 2)
        for alpha in [0.0, 1.0, -0.1, .nan, .infinity] {
            #expect(parameter { _ = try p.wilsonInterval(alpha: alpha) } == "alpha")
            #expect(parameter { _ = try ProportionComparison(control: p, variant: p, alpha: alpha) } == "alpha")
        }
    }

    @Test func comparisonsAtTheEdges() throws {
        // Both arms at 0%: no variation, p = 1, lift undefined, the interval is the point 0.
        let zero = try Proportion(count: 0, total: 5)
        let none = try ProportionComparison(control: zero, variant: zero)
        #expect(none.pValue == 1 && none.zStatistic == nil && none.relativeLift == nil)
        #expect(none.absoluteInterval == Interval(lower: 0, upper: 0))
        // Both at 100%.
        let all = try Proportion(count: 5, total: 5)
        let full = try ProportionComparison(control: all, variant: all)
        #expect(full.pValue == 1 && full.relativeLift == 0)
        // 0% vs 100% with n = 1: a finite z and p, a defined interval.
        let one = try ProportionComparison(control: try Proportion(count: 0, total: 1), variant: try Proportion(count: 1, total: 1))
        #expect(one.pValue.isFinite && one.pValue > 0 && one.pValue < 1)
        #expect(one.relativeLift == nil)
        let bayes = BayesianComparison(control: zero, variant: all)
        #expect(bayes.chanceToWin.isFinite && bayes.chanceToWin > 0.99 && bayes.expectedLoss >= 0)
    }

    @Test func samples() throws {
        #expect(parameter { _ = try SampleSummary(count: -1, sum: 0, sumOfSquares: 0) } == "count")
        #expect(parameter { _ = try SampleSummary(count: 3, sum: .nan, sumOfSquares: 1) } == "sum")
        #expect(parameter { _ = try SampleSummary(count: 3, sum: 1, sumOfSquares: .infinity) } == "sumOfSquares")
        #expect(parameter { _ = try SampleSummary(count: 3, sum: 1, sumOfSquares: -1) } == "sumOfSquares")
        #expect(parameter { _ = try SampleSummary(count: 2, sum: 10, sumOfSquares: 1) } == "sumOfSquares")
        #expect(parameter { _ = try SampleSummary(count: 0, sum: 1, sumOfSquares: 1) } == "count")
        #expect(parameter { _ = try SampleSummary(values: [1, .nan]) } == "values")
        let single = try SampleSummary(count: 1, sum: 5, sumOfSquares: 25)
        let empty = try SampleSummary(count: 0, sum: 0, sumOfSquares: 0)
        #expect(throws: StatisticsError.self) { try WelchTest(control: single, variant: single) }
        #expect(throws: StatisticsError.self) { try empty.mean() }
    }

    @Test func bayesianAndCorrections() throws {
        #expect(throws: StatisticsError.self) { try BayesianComparison.chanceToBeBest([try Proportion(count: 1, total: 2)]) }
        #expect(parameter { _ = try BetaDistribution(alpha: 0, beta: 1) } == "alpha")
        #expect(parameter { _ = try MultipleTesting.holm([0.1, .nan]) } == "pValues")
        #expect(parameter { _ = try MultipleTesting.benjaminiHochberg([1.5]) } == "pValues")
    }

    @Test func sampleRatioMismatch() throws {
        #expect(parameter { _ = try SampleRatioMismatch(counts: [1, -1], weights: [1, 1]) } == "counts")
        #expect(parameter { _ = try SampleRatioMismatch(counts: [1, 1], weights: [1, 0]) } == "weights")
        #expect(parameter { _ = try SampleRatioMismatch(counts: [1, 1], weights: [1]) } == "weights")
        #expect(throws: StatisticsError.self) { try SampleRatioMismatch(counts: [5], weights: [1]) }
    }

    @Test func power() throws {
        #expect(parameter { _ = try SampleSize(baseline: 0, relativeMDE: 0.1) } == "baseline")
        #expect(parameter { _ = try SampleSize(baseline: 1, relativeMDE: 0.1) } == "baseline")
        #expect(parameter { _ = try SampleSize(baseline: .nan, relativeMDE: 0.1) } == "baseline")
        #expect(parameter { _ = try SampleSize(baseline: 0.1, relativeMDE: 0) } == "mde")
        #expect(parameter { _ = try SampleSize(baseline: 0.6, relativeMDE: 1) } == "mde")
        #expect(parameter { _ = try SampleSize(baseline: 0.1, relativeMDE: -1) } == "mde")
        #expect(parameter { _ = try SampleSize(baseline: 0.1, relativeMDE: 1e-9) } == "mde")
        #expect(parameter { _ = try SampleSize(baseline: 0.1, relativeMDE: 0.1, power: 1) } == "power")
        #expect(parameter { _ = try SampleSize(baseline: 0.1, relativeMDE: 0.1, variants: 1) } == "variants")
        #expect(parameter { _ = try SampleSize.power(baseline: 0.1, relativeMDE: 0.1, usersPerVariant: 0) } == "usersPerVariant")
    }

    @Test func survival() throws {
        #expect(parameter { _ = try SurvivalObservation(time: -1, event: true) } == "time")
        #expect(parameter { _ = try SurvivalObservation(time: .nan, event: true) } == "time")
        #expect(throws: StatisticsError.self) { try KaplanMeier([]) }
        let one = [try SurvivalObservation(time: 2, event: true)]
        #expect(throws: StatisticsError.self) { try LogRankTest(groups: [one]) }
        #expect(throws: StatisticsError.self) { try LogRankTest(groups: [one, []]) }
        // Everyone cancels: S falls to 0 and the interval is [0, 0], not NaN.
        let curve = try KaplanMeier(one)
        #expect(curve.survival(at: 5) == 0 && curve.interval(at: 5) == Interval(lower: 0, upper: 0))
    }

    @Test func sequentialAndRandom() throws {
        #expect(parameter { _ = try SequentialTest(mixingVariance: 0) } == "mixingVariance")
        #expect(parameter { _ = try SequentialTest(alpha: 2) } == "alpha")
        var test = try SequentialTest()
        let look = test.update(control: try Proportion(count: 0, total: 10), variant: try Proportion(count: 0, total: 10))
        #expect(look.pValue == 1 && look.interval == Interval(lower: -1, upper: 1) && !look.rejected)
        var rng = SplitMix64(seed: 3)
        #expect(parameter { _ = try RandomVariates.binomial(trials: -1, probability: 0.5, using: &rng) } == "trials")
        #expect(parameter { _ = try RandomVariates.binomial(trials: 5, probability: .nan, using: &rng) } == "probability")
        #expect(try RandomVariates.binomial(trials: 5, probability: 1, using: &rng) == 5)
        #expect(try RandomVariates.binomial(trials: 5, probability: 0, using: &rng) == 0)
    }
}
