import Foundation
import Statistics
import Testing

/// Pearson's test of independence (the report's `identity_imbalance`) against scipy's
/// `chi2_contingency(correction=False)` on Fixtures/independence.json (make_independence.py).
@Suite struct IndependenceTests {
    struct Case: Decodable {
        let table: [[Int]]
        let statistic: Double
        let dof: Int
        let p_value: Double
    }

    @Test func matchesScipy() throws {
        let cases = try loadCases("independence", as: Case.self)
        #expect(cases.count == 200)
        for c in cases {
            let r = try #require(ChiSquare.independence(c.table))
            #expect(r.degreesOfFreedom == c.dof, "\(c.table)")
            #expect(isClose(r.statistic, c.statistic, relative: 1e-9), "\(c.table): \(r.statistic) against \(c.statistic)")
            #expect(isClose(r.pValue, c.p_value, relative: 1e-6, absolute: 1e-300), "\(c.table): \(r.pValue) against \(c.p_value)")
        }
    }

    @Test func emptyRowsAndColumnsAreLeftOut() {
        #expect(ChiSquare.independence([[10, 0], [20, 0]]) == nil)
        #expect(ChiSquare.independence([[10, 5], [0, 0]]) == nil)
        let kept = ChiSquare.independence([[10, 5, 0], [0, 0, 0], [20, 30, 0]])
        let same = ChiSquare.independence([[10, 5], [20, 30]])
        #expect(kept?.statistic == same?.statistic && kept?.degreesOfFreedom == 1)
    }
}
