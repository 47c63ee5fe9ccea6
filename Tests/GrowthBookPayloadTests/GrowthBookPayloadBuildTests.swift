import Assignment
import ExperimentDefinitions
import Foundation
import Testing
@testable import GrowthBookPayload

/// The payload's shape, its date window and its entity tag, over the shipped experiments.
@Suite struct GrowthBookPayloadBuildTests {
    static let catalog: ExperimentCatalog = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return try! ExperimentFiles.load(directory: url.path + "/Experiments")
    }()

    static func json(_ payload: GrowthBookPayload) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(payload.body)) as? [String: Any])
    }

    @Test func runningExperimentsInsideTheirDates() throws {
        let start = try #require(RFC3339.parse("2026-11-02T00:00:00Z"))
        let before = GrowthBookPayload.build(catalog: Self.catalog, now: start.addingTimeInterval(-1))
        // Before any experiment starts only the placements and the global holdout (its forced users only)
        // are features, and the placements give their defaults; feature_gate, whose ios audience shows
        // the bandit chorus-voice, is left out (docs/Bandits.md), as the bandit is.
        let early = try #require(try Self.json(before)["features"] as? [String: [String: Any]])
        #expect(early.keys.sorted() == ["chorus-holdout", "placement:onboarding_end"])
        let earlyRules = try #require(early["placement:onboarding_end"]?["rules"] as? [[String: Any]])
        #expect(earlyRules.allSatisfy { $0["force"] != nil } && earlyRules.count == 4)   // forced users come before dates
        #expect(before.validUntil == start)
        #expect(before.isCurrent(at: start.addingTimeInterval(-0.5)))
        #expect(!before.isCurrent(at: start))

        let after = GrowthBookPayload.build(catalog: Self.catalog, now: start)
        let features = try #require(try Self.json(after)["features"] as? [String: [String: Any]])
        #expect(features.keys.sorted() == ["chorus-discount-framing", "chorus-holdout", "chorus-paywall-copy", "chorus-trial-length", "placement:onboarding_end"])
        // Per audience: the experiment rule under the audience's condition, then the default under the same condition.
        let rules = try #require(features["placement:onboarding_end"]?["rules"] as? [[String: Any]])
        #expect(rules.map { $0["key"] as? String ?? ($0["force"] != nil ? "force" : "?") } == ["force", "force", "chorus-paywall-copy", "force", "chorus-trial-length", "force"])
        #expect(rules[5]["condition"] == nil)
        #expect(after.validFrom == start && after.validUntil == nil)
        #expect(!after.isCurrent(at: start.addingTimeInterval(-1)))
    }

    @Test func ruleShape() throws {
        let payload = try Self.json(GrowthBookPayload.build(catalog: Self.catalog, now: Date()))
        #expect(payload["status"] as? Int == 200)
        let feature = try #require((payload["features"] as? [String: [String: Any]])?["chorus-paywall-copy"])
        #expect(feature["defaultValue"] is NSNull)
        let rules = try #require(feature["rules"] as? [[String: Any]])
        // Forced users first, in id order, as force rules with their variant's paywall.
        #expect(rules.prefix(2).map { ($0["condition"] as? [String: String])?["id"] } == ["qa-device-1", "qa-device-2"])
        let experiment = try #require(rules.last)
        #expect(experiment["key"] as? String == "chorus-paywall-copy")
        #expect(experiment["hashAttribute"] as? String == "id")
        #expect(experiment["phase"] as? String == "0")
        #expect((experiment["meta"] as? [[String: String]])?.map { $0["key"] } == ["control", "name", "ai"])
        #expect(experiment["namespace"] as? [AnyHashable] == ["paywall", 0, 0.4] as [AnyHashable])
        let weights = try #require(experiment["weights"] as? [Double])
        #expect(abs(weights.reduce(0, +) - 1) < 1e-12)
        let variations = try #require(experiment["variations"] as? [[String: Any]])
        #expect(NSDictionary(dictionary: rules[0]["force"] as? [String: Any] ?? [:]).isEqual(to: variations[2]))   // qa-device-1 → ai
        let condition = try #require(experiment["condition"] as? [String: [Any]])
        #expect(condition["$and"]?.count == 1)
    }

    @Test func entityTagFollowsTheFeaturesOnly() {
        let a = GrowthBookPayload.build(catalog: Self.catalog, now: Date())
        let b = GrowthBookPayload.build(catalog: Self.catalog, now: Date().addingTimeInterval(60))
        #expect(a.etag == b.etag)
        #expect(a.body != b.body)   // dateUpdated differs
        var fewer = Self.catalog
        fewer.experiments.removeLast()
        #expect(GrowthBookPayload.build(catalog: fewer, now: Date()).etag != a.etag)
    }
}
