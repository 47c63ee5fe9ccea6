import Testing
@testable import Statistics

/// The normal-approximation chance to win and expected loss for revenue, against mpmath at 50 digits
/// (cross-checked by scipy's quadrature in the generating script, `Fixtures/make_normal_bayes.py`).
struct NormalBayesianTests {
    struct Case: Decodable {
        let control: [Double], variant: [Double]
        let difference: Double, standard_error: Double, chance_to_win: Double, expected_loss: Double
    }

    @Test func figuresMatchHighPrecisionReferences() throws {
        let cases = try loadCases("normal_bayes", as: Case.self)
        #expect(cases.count >= 200)
        #expect(cases.contains { $0.difference / $0.standard_error > 8 } && cases.contains { $0.difference / $0.standard_error < -8 })
        for c in cases {
            let sc = try SampleSummary(count: Int(c.control[0]), sum: c.control[1], sumOfSquares: c.control[2])
            let sv = try SampleSummary(count: Int(c.variant[0]), sum: c.variant[1], sumOfSquares: c.variant[2])
            let b = try NormalBayesianComparison(control: sc, variant: sv)
            #expect(isClose(b.difference, c.difference, relative: 1e-9, absolute: 1e-12), "\(c)")
            #expect(isClose(b.standardError, c.standard_error, relative: 1e-9), "\(c)")
            #expect(isClose(b.chanceToWin, c.chance_to_win, relative: 1e-9, absolute: 1e-300), "\(c) got \(b.chanceToWin)")
            #expect(isClose(b.expectedLoss, c.expected_loss, relative: 1e-9, absolute: 1e-300), "\(c) got \(b.expectedLoss)")
        }
    }

    @Test func noSpreadIsAnError() throws {
        let flat = try SampleSummary(values: [5, 5, 5])
        #expect(throws: StatisticsError.self) { try NormalBayesianComparison(control: flat, variant: flat) }
        #expect(throws: StatisticsError.self) { try NormalBayesianComparison(control: try SampleSummary(values: [1]), variant: flat) }
    }

    @Test func linearQuantileFollowsNumpy() throws {
        // numpy.quantile([1, 2, 3, 4], q) for q = 0, 0.25, 0.5, 0.9, 1: 1, 1.75, 2.5, 3.7, 4.
        let x: [Double] = [1, 2, 3, 4]
        #expect(try [0, 0.25, 0.5, 0.9, 1].map { try Quantile.linear(sorted: x, $0) } == [1, 1.75, 2.5, 3.7, 4])
        #expect(try Quantile.linear(sorted: [7], 0.99) == 7)
        #expect(throws: StatisticsError.self) { try Quantile.linear(sorted: [], 0.5) }
    }
}
