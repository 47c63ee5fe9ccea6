import Assignment
import Foundation
import Testing
import TestSupport
@testable import ExperimentDefinitions

/// `validate --against REF` on the files every experiment shares: a change to `products.json` that
/// alters what a running arm charges or how its revenue is counted, and a change to `placements.json`
/// that alters who reaches a running experiment, are warnings at the line of the shared file.
@Suite struct AgainstSharedFilesTests {
    static let now = AgainstTests.now

    /// REF and the folder hold `experiment` (running unless said) and the two versions of one shared file.
    func validate(_ name: String, before: String, after: String, status: String = "running") throws -> [Diagnostic] {
        let ref = TemporaryFolder(), folder = TemporaryFolder()
        var spec = AgainstTests.Spec()
        spec.status = status
        for f in [ref, folder] {
            f.write("exp-a.json", spec.json)
            if name != "products.json" { f.write("products.json", productsJSON) }
        }
        ref.write(name, before)
        folder.write(name, after)
        let report = try ExperimentFiles.validate(paths: [folder.path], against: ref.path, now: Self.now)
        #expect(report.diagnostics.allSatisfy { $0.severity != .error }, "\(report.diagnostics.map(\.message))")
        return report.diagnostics
    }

    @Test func aPriceARunningArmShowsIsAWarningAtItsLine() throws {
        let after = productsJSON.replacingOccurrences(of: #""price": 59.99"#, with: #""price": 64.99"#)
        let d = try validate("products.json", before: productsJSON, after: after)
        #expect(d.map(\.code) == ["running_arm_changed"], "\(d.map(\.message))")
        let warning = try #require(d.first)
        #expect(warning.file.hasSuffix("/products.json") && warning.position.line == 4, "\(warning.line)")
        #expect(warning.change?.fields == ["offerings.chorus_plus.plans.annual.price"])
        #expect(warning.message.hasPrefix("offering 'chorus_plus' plan 'annual' changed (price 59.99 → 64.99) since "), "\(warning.message)")
        #expect(warning.message.hasSuffix(", which running arms exp-a/control, exp-a/name, exp-a/ai show: their results would mix two prices"), "\(warning.message)")
    }

    @Test func anOfferingNoRunningArmShowsChangesFreely() throws {
        let after = productsJSON.replacingOccurrences(of: #""price": 60"#, with: #""price": 65"#)
        #expect(try validate("products.json", before: productsJSON, after: after).isEmpty)
        // Nor does anything warn while the experiment is not running.
        let chorus = productsJSON.replacingOccurrences(of: #""price": 59.99"#, with: #""price": 64.99"#)
        #expect(try validate("products.json", before: productsJSON, after: chorus, status: "draft").isEmpty)
    }

    @Test func howRevenueIsCountedIsJudgedLikeTheMetrics() throws {
        let after = productsJSON.replacingOccurrences(of: #"{ "currency": "USD","#, with: #"{ "currency": "USD", "exchange_rates": { "EUR": 1.1 },"#)
        let d = try validate("products.json", before: productsJSON, after: after)
        #expect(d.map(\.code) == ["running_metrics_changed"], "\(d.map(\.message))")
        #expect(d.first?.change?.fields == ["exchange_rates"])
        #expect(d.first?.message.contains("running experiments exp-a") == true, "\(d.first?.message ?? "")")
    }

    static func placements(_ audiences: [String]) -> String {
        """
        { "placements": { "onboarding_end": {
            "default": { "offering": "chorus_plus", "trial_days": 3, "discount_framing": "none", "copy": { "strategy": "static", "text": "Hear every bird." } },
            "audiences": [
              \(audiences.joined(separator: ",\n      "))
            ] } } }
        """
    }

    static let ios = #"{ "name": "ios", "condition": { "platform": "ios" }, "experiment": "exp-a" }"#
    static let rest = #"{ "name": "rest", "paywall": null }"#

    @Test(arguments: [
        ("routes elsewhere", [#"{ "name": "ios", "condition": { "platform": "ios" }, "paywall": null }"#, rest], "now routes to a fixed paywall"),
        ("removed", [rest], "its audience 'ios' was removed"),
        ("condition changed", [#"{ "name": "ios", "condition": { "platform": "android" }, "experiment": "exp-a" }"#, rest], "has another condition"),
        ("a new audience above", [#"{ "name": "web", "condition": { "platform": "web" }, "paywall": null }"#, ios, rest], "a new audience 'web' is placed above"),
    ])
    func anAudienceFeedingARunningExperimentIsAWarning(edit: String, audiences: [String], says: String) throws {
        let d = try validate("placements.json", before: Self.placements([Self.ios, Self.rest]), after: Self.placements(audiences))
        #expect(d.map(\.code) == ["running_placement_changed"], "\(edit): \(d.map(\.message))")
        #expect(d.first?.message.contains(says) == true, "\(edit): \(d.first?.message ?? "")")
        #expect(d.first?.message.hasPrefix("placement 'onboarding_end' routed users to running experiment 'exp-a'") == true, "\(d.first?.message ?? "")")
        #expect(d.first?.file.hasSuffix("/placements.json") == true)
    }

    @Test func aNewAudienceBelowOrAnotherPlacementsEditPasses() throws {
        let below = Self.placements([Self.ios, #"{ "name": "web", "condition": { "platform": "web" }, "paywall": null }"#, Self.rest])
        #expect(try validate("placements.json", before: Self.placements([Self.ios, Self.rest]), after: below).isEmpty)
    }
}
