import ExperimentDefinitions
import Foundation
import Testing
@testable import GrowthBookPayload

/// The payload follows the rollout stage and the safeguard stops: coverage × the stage's
/// share, a new payload at each boundary, a stopped arm's variation is the control's paywall.
@Suite struct RolloutPayloadTests {
    static func catalog() throws -> ExperimentCatalog {
        var e = try #require(GrowthBookPayloadBuildTests.catalog.experiments.first { $0.id == "chorus-paywall-copy" })
        e.forced = [:]
        e.rollout = Rollout(stages: [.init(share: 0.1, hours: 24), .init(share: 1)])
        return ExperimentCatalog(experiments: [e], products: GrowthBookPayloadBuildTests.catalog.products)
    }

    static func rule(_ p: GrowthBookPayload) throws -> [String: Any] {
        let features = try #require(try GrowthBookPayloadBuildTests.json(p)["features"] as? [String: [String: Any]])
        return try #require((features["chorus-paywall-copy"]?["rules"] as? [[String: Any]])?.last)
    }

    @Test func coverageFollowsTheStageAndTheBoundaryEndsThePayload() throws {
        let catalog = try Self.catalog()
        let e = catalog.experiments[0]
        let start = try #require(e.start)
        let first = GrowthBookPayload.build(catalog: catalog, now: start.addingTimeInterval(60))
        #expect(try Self.rule(first)["coverage"] as? Double == e.coverage * 0.1)
        #expect(first.validUntil == start.addingTimeInterval(24 * 3600))
        let second = GrowthBookPayload.build(catalog: catalog, now: start.addingTimeInterval(24 * 3600))
        #expect(try Self.rule(second)["coverage"] as? Double == e.coverage)
        // A stop holds the first stage and gives the stopped arm the control's paywall.
        let held = GrowthBookPayload.build(catalog: catalog, now: start.addingTimeInterval(48 * 3600),
                                           stops: [e.id: .init(stoppedArms: ["ai"], holdStageAt: start.addingTimeInterval(60))])
        let rule = try Self.rule(held)
        #expect(rule["coverage"] as? Double == e.coverage * 0.1)
        #expect(held.validUntil == nil)
        let variations = try #require(rule["variations"] as? [[String: Any]])
        #expect(NSDictionary(dictionary: variations[2]).isEqual(to: variations[0]))
        #expect(!NSDictionary(dictionary: variations[1]).isEqual(to: variations[0]))
    }
}
