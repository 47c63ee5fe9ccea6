import Foundation
import Testing

/// Loads `Fixtures/NAME.json` (written by Fixtures/make_fixtures.py) and decodes its `cases`.
func loadCases<Case: Decodable>(_ name: String, as type: Case.Type = Case.self) throws -> [Case] {
    let url = try #require(Bundle.module.url(forResource: "Fixtures/\(name)", withExtension: "json"))
    return try JSONDecoder().decode(FixtureFile<Case>.self, from: Data(contentsOf: url)).cases
}

/// |actual − expected| <= max(relative·|expected|, absolute); infinities must match exactly.
func isClose(_ actual: Double, _ expected: Double, relative: Double, absolute: Double = 0) -> Bool {
    if expected.isInfinite || actual.isInfinite { return actual == expected }
    return abs(actual - expected) <= max(relative * abs(expected), absolute)
}

/// The error measure `isClose` uses, for reporting the worst case.
func relativeError(_ actual: Double, _ expected: Double) -> Double {
    if actual == expected { return 0 }
    return abs(actual - expected) / max(abs(expected), Double.leastNormalMagnitude)
}

struct FixtureFile<Case: Decodable>: Decodable { let cases: [Case] }
