import Foundation
import Testing
@testable import ExperimentDefinitions

@Suite struct PaywallModelTests {
    let products = Products(currency: "USD", offerings: ["chorus_plus": [
        "monthly": .init(productID: "m", price: 9.99, period: "P1M"),
        "annual": .init(productID: "a", price: 59.99, period: "P1Y"),
    ]])

    @Test func discountTextIsComputedFromPrices() throws {
        // 59.99 / (12 × 9.99) = 0.5004 → Save 49%; 12 − 59.99 / 9.99 = 5.995 → 5 months; 59.99 / 52 = 1.1537 → $1.15.
        #expect(try products.discountText(.percentOff, offering: "chorus_plus") == "Save 49%")
        #expect(try products.discountText(.monthsFree, offering: "chorus_plus") == "5 months free")
        #expect(try products.discountText(.perWeek, offering: "chorus_plus") == "$1.15/week")
        #expect(try products.discountText(.none, offering: "chorus_plus") == nil)
    }

    @Test func exactRatiosDoNotFloorOneBelow() throws {
        let even = Products(currency: "EUR", offerings: ["o": ["m": .init(productID: "m", price: 10, period: "P1M"), "a": .init(productID: "a", price: 60, period: "P1Y")]])
        #expect(try even.discountText(.percentOff, offering: "o") == "Save 50%")
        #expect(try even.discountText(.monthsFree, offering: "o") == "6 months free")
        #expect(try even.discountText(.perWeek, offering: "o") == "€1.15/week")
    }

    @Test func claimsThatAreNotDiscountsThrow() {
        let dear = Products(currency: "USD", offerings: ["o": ["m": .init(productID: "m", price: 5, period: "P1M"), "a": .init(productID: "a", price: 70, period: "P1Y")]])
        #expect(throws: Products.DiscountProblem.claimNotPositive("Save -17%")) { try dear.discountText(.percentOff, offering: "o") }
        #expect(throws: Products.DiscountProblem.needsMonthlyAndAnnual("o")) {
            try Products(currency: "USD", offerings: ["o": ["a": .init(productID: "a", price: 70, period: "P1Y")]]).discountText(.monthsFree, offering: "o")
        }
    }

    @Test func templatesInsertValuesAsTextOnce() throws {
        let t = try CopyTemplate(parsing: "{{custom.userName}}, hi {{ custom.userName }}")
        #expect(t.customNames == ["userName"])
        // A value that looks like a placeholder is not expanded again.
        #expect(t.render { _ in "{{ custom.userName }}" } == "{{ custom.userName }}, hi {{ custom.userName }}")
        #expect(t.render { $0 == "custom.userName" ? "Ada" : nil } == "Ada, hi Ada")
        #expect(throws: CopyTemplate.Problem.self) { try CopyTemplate(parsing: "a }} b") }
    }

    @Test(arguments: [(">=2.1.0", "2.1", true), (">=2.1.0", "2.0.9", false), (">2.1", "2.1.1", true), ("<3", "2.99.99", true),
                      ("<=1.0", "1.0.0", true), ("==1.2.3", "1.2.3", true), ("==1.2.3", "1.2.4", false), (">=1", "beta", false)])
    func versionConstraints(constraint: String, version: String, matches: Bool) throws {
        let c = try #require(VersionConstraint(constraint))
        #expect(c.matches(version) == matches)
    }

    @Test(arguments: ["2.1.0", ">=", ">=2..1", "=>2.1", ">=v2"])
    func malformedConstraints(text: String) { #expect(VersionConstraint(text) == nil) }

    @Test func rfc3339() throws {
        #expect(RFC3339.parse("2026-12-01T10:00:00Z")?.timeIntervalSince1970 == 1_796_119_200)
        #expect(RFC3339.parse("2026-12-01T11:00:00+01:00") == RFC3339.parse("2026-12-01T10:00:00Z"))
        #expect(RFC3339.parse("2024-02-29T00:00:00.250Z")?.timeIntervalSince1970 == 1_709_164_800.25)
        // The one reader of events and experiment files alike: a space may stand for the `T`.
        #expect(RFC3339.parse("2026-12-01 10:00:00Z") == RFC3339.parse("2026-12-01T10:00:00Z"))
        #expect(RFC3339.parse("2026-12-01T10:00:00.1234567Z")?.timeIntervalSince1970 == 1_796_119_200.123456)
        for bad in ["2026-02-30T00:00:00Z", "2026-12-01_10:00:00Z", "2026-12-01T10:00:00", "2026-12-01T25:00:00Z", "2026-12-01T10:00:00.Z", ""] {
            #expect(RFC3339.parse(bad) == nil, "\(bad)")
        }
        #expect(RFC3339.format(Date(timeIntervalSince1970: 1_796_119_200)) == "2026-12-01T10:00:00Z")
    }

    @Test func briefRulesJoinMatchingSentencesInOrder() {
        let brief = Brief(rules: [
            BriefRule(signal: "companion", test: .equals("dog"), say: "They walk with their dog."),
            BriefRule(signal: "goal", test: .isIn(["relax", "calm"]), say: "They walk to slow down."),
            BriefRule(signal: "walk_time", test: .present(true), say: "They have a usual walk time."),
        ])
        #expect(brief.build(signals: ["goal": .string("calm"), "companion": .string("dog")]) == "They walk with their dog. They walk to slow down.")
        #expect(brief.build(signals: ["companion": .string("cat"), "walk_time": .string("dawn")]) == "They have a usual walk time.")
        #expect(brief.build(signals: ["walk_time": .string("")]) == "")
    }
}
