import ExperimentDefinitions
import Foundation
import Testing
import TestSupport
@testable import Assignment

/// Placements, global holdouts and shipped winners, and where they fall in the order of checks.
@Suite struct PlacementAssignmentTests {
    static let products = """
    { "currency": "USD", "offerings": { "plus": { "plans": {
        "monthly": { "product_id": "plus.monthly", "price": 9.99, "period": "P1M" },
        "annual":  { "product_id": "plus.annual",  "price": 59.99, "period": "P1Y" } } } } }
    """

    static func paywall(_ trial: Int, _ text: String) -> String {
        #"{"offering": "plus", "trial_days": \#(trial), "copy": {"strategy": "static", "text": "\#(text)"}}"#
    }

    static func experiment(_ id: String, _ extra: String = "") -> String {
        #"{"id": "\#(id)", "name": "\#(id)", "status": "running", \#(extra) "forced": {"qa-\#(id)": "b"}, "variants": [{"key": "a", "paywall": \#(paywall(1, id + " a"))}, {"key": "b", "paywall": \#(paywall(2, id + " b"))}]}"#
    }

    static func catalog(holdout: Bool = true) throws -> ExperimentCatalog {
        let folder = TemporaryFolder()
        folder.write("products.json", products)
        folder.write("copy.json", experiment("copy", #""namespace": {"id": "ns", "range": [0, 0.5]}, "#))
        folder.write("gb.json", experiment("gb", #""targeting": {"country": ["GB"]}, "#))
        folder.write("nullarm.json", #"{"id": "nullarm", "name": "n", "status": "running", "variants": [{"key": "a", "paywall": \#(paywall(1, "x"))}, {"key": "none", "paywall": null}]}"#)
        folder.write("shipped.json", experiment("shipped", #""status": "shipped", "winner": "b", "start": "2020-01-01T00:00:00Z", "end": "2021-01-01T00:00:00Z", "coverage": 0.1, "namespace": {"id": "ns", "range": [0.5, 0.6]}, "targeting": {"platform": ["ios"]}, "#).replacingOccurrences(of: #""status": "running", "#, with: ""))
        if holdout {
            folder.write("hold.json", #"{"id": "hold", "name": "Holdout", "kind": "holdout", "fraction": 0.2, "status": "running", "forced": {"qa-hold": "holdout"}}"#)
        }
        folder.write("placements.json", """
        { "placements": { "p": {
            "default": \(paywall(5, "default")),
            "audiences": [
              { "name": "gate", "condition": { "gate": true }, "paywall": null },
              { "name": "fixed", "condition": { "fixed": true }, "paywall": \(paywall(7, "fixed")) },
              { "name": "uk", "condition": { "country": "GB" }, "experiment": "gb" },
              { "name": "ios", "condition": { "platform": "ios" }, "experiment": "shipped" },
              { "name": "arm", "condition": { "arm": true }, "experiment": "nullarm" },
              { "name": "rest", "condition": { "sessions": { "$gte": 1 } }, "experiment": "copy" } ] } } }
        """)
        return try withExtendedLifetime(folder) { try ExperimentFiles.load(directory: folder.path) }
    }

    @Test func theFirstMatchingAudienceDecides() throws {
        let assigner = try Assigner(catalog: Self.catalog(holdout: false))
        func answer(_ user: UserID, _ attributes: Attributes) throws -> PlacementAssignment {
            try #require(assigner.assign(userID: user, attributes: attributes, placement: "p"))
        }
        // A fixed null paywall wins over everything below it.
        let gate = try answer("u1", ["gate": .bool(true), "country": .string("GB")])
        #expect(gate.audience?.name == "gate" && gate.reason == "audience" && gate.paywall == nil && gate.assignment == nil)
        let fixed = try answer("u1", ["fixed": .bool(true)])
        #expect(fixed.reason == "audience" && fixed.paywall?.trialDays == 7)
        // No audience: the default, with the reason.
        let none = try answer("u1", [:])
        #expect(none.audience == nil && none.reason == "default" && none.paywall?.trialDays == 5)
        // An experiment: its variant's paywall when it takes the user, else the default with its reason.
        var seen: Set<String> = []
        for n in 0..<400 {
            let a = try answer(UserID("user-\(n)"), ["sessions": .number(3)])
            let direct = assigner.assign(userID: UserID("user-\(n)"), attributes: ["sessions": .number(3)], experimentID: "copy")!
            #expect(a.audience?.name == "rest" && a.assignment == direct && a.reason == direct.reason.rawValue)
            if direct.inExperiment {
                #expect(a.paywall?.trialDays == (direct.variantKey == "a" ? 1 : 2))
            } else {
                #expect(direct.reason == .namespace && a.paywall?.trialDays == 5)
            }
            seen.insert(a.reason)
        }
        #expect(seen == ["assigned", "namespace"])
        // A forced user sees the forced variant.
        #expect(try answer("qa-copy", ["sessions": .number(3)]).paywall?.trialDays == 2)
        // A null arm: no paywall, and the user is in the experiment.
        var arms: [String: Int] = [:]
        for n in 0..<200 {
            let a = try answer(UserID("user-\(n)"), ["arm": .bool(true)])
            let key = try #require(a.assignment?.variantKey)
            arms[key, default: 0] += 1
            #expect((a.paywall == nil) == (key == "none") && a.assignment?.inExperiment == true)
        }
        #expect(arms.count == 2)
    }

    @Test func aShippedExperimentGivesEveryoneTargetedTheWinner() throws {
        let assigner = try Assigner(catalog: Self.catalog(holdout: false))
        for n in 0..<300 {
            // Dates, namespace and coverage no longer matter; targeting still does.
            let a = try #require(assigner.assign(userID: UserID("user-\(n)"), attributes: ["platform": .string("ios")], placement: "p"))
            #expect(a.reason == "shipped" && a.assignment?.variantIndex == nil && a.assignment?.inExperiment == false)
            #expect(a.paywall?.trialDays == 2)
            let direct = try #require(assigner.assign(userID: UserID("user-\(n)"), attributes: ["platform": .string("android")], experimentID: "shipped"))
            #expect(direct.reason == .targeting && direct.paywallVariantIndex == nil)
        }
        // The experiments form: the winner's paywall with no variant.
        let e = try #require(assigner.assign(userID: "u", attributes: ["platform": .string("ios")], experimentID: "shipped"))
        #expect(e.reason == .shipped && e.variantKey == nil && e.paywallVariantIndex == 1)
        // Forced comes first.
        #expect(assigner.assign(userID: "qa-shipped", attributes: [:], experimentID: "shipped")?.reason == .forced)
    }

    @Test func aGlobalHoldoutKeepsItsUsersOutOfEveryOtherExperiment() throws {
        let assigner = try Assigner(catalog: Self.catalog())
        let users = 20_000
        var held = 0
        for n in 0..<users {
            let user = UserID("user-\(n)")
            let attributes: Attributes = ["sessions": .number(2), "country": .string("GB"), "platform": .string("ios")]
            let holdouts = assigner.holdoutAssignments(userID: user, attributes: attributes)
            let arm = try #require(holdouts.first?.variantKey)
            #expect(holdouts.count == 1 && holdouts[0].inExperiment)
            let all = assigner.assign(userID: user, attributes: attributes)
            let p = try #require(assigner.assign(userID: user, attributes: attributes, placement: "p"))
            if arm == "holdout" {
                held += 1
                // Every other experiment: out, with the control's paywall in the experiments form.
                for a in all where a.experimentID != "hold" {
                    #expect(a.reason == .holdout && a.variantIndex == nil && a.paywallVariantIndex == 0)
                }
                #expect(p.reason == "holdout" && p.audience?.name == "uk" && p.paywall?.trialDays == 5)
                // An audience's fixed paywall or null applies to everyone.
                let gate = try #require(assigner.assign(userID: user, attributes: ["gate": .bool(true)], placement: "p"))
                #expect(gate.reason == "audience" && gate.paywall == nil)
            } else {
                #expect(all.allSatisfy { $0.reason != .holdout })
                #expect(p.reason != "holdout")
            }
        }
        let share = Double(held) / Double(users)
        #expect(abs(share - 0.2) < 4 * (0.2 * 0.8 / Double(users)).squareRoot(), "held out: \(share)")
        // A user forced into the holdout is held out; one forced into an experiment still gets it (forced comes first).
        #expect(assigner.assign(userID: "qa-hold", attributes: ["country": .string("GB")], experimentID: "gb")?.reason == .holdout)
        #expect(assigner.assign(userID: "qa-gb", attributes: ["country": .string("GB")], experimentID: "gb")?.reason == .forced)
    }
}
