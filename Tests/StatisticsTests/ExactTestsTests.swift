import Testing
@testable import Statistics

/// The one-sided exact tests of offer mismatches against scipy (`Fixtures/make_exact.py`):
/// `binomtest` and `fisher_exact`, alternative "greater".
struct ExactTestsTests {
    struct Case: Decodable {
        let kind: String
        let k: Int?, n: Int?, p: Double?
        let a: Int?, n1: Int?, c: Int?, n2: Int?
        let p_value: Double
    }

    // Sums and incomplete betas of exact terms: 1e-10 relative, or 1e-300 absolute in the far tail.
    @Test func binomialAndFisherMatchScipy() throws {
        let cases = try loadCases("exact", as: Case.self)
        #expect(cases.filter { $0.kind == "binomial" }.count >= 200 && cases.filter { $0.kind == "fisher" }.count >= 200)
        for c in cases {
            let p = c.kind == "binomial"
                ? try ExactTests.binomialGreater(successes: c.k!, trials: c.n!, probability: c.p!)
                : try ExactTests.fisherGreater(events: c.a!, of: c.n1!, againstEvents: c.c!, of: c.n2!)
            #expect(isClose(p, c.p_value, relative: 1e-10, absolute: 1e-300), "\(c): \(p)")
        }
    }

    @Test func badCountsAreRefused() {
        #expect(throws: StatisticsError.self) { try ExactTests.binomialGreater(successes: 3, trials: 2, probability: 0.02) }
        #expect(throws: StatisticsError.self) { try ExactTests.binomialGreater(successes: 1, trials: 2, probability: 1.5) }
        #expect(throws: StatisticsError.self) { try ExactTests.fisherGreater(events: -1, of: 2, againstEvents: 0, of: 2) }
    }
}
