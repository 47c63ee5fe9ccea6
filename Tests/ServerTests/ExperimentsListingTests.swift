import Assignment
import ExperimentDefinitions
import Foundation
import Testing
@testable import Server

/// `GET /v1/experiments` shows where a rollout stands.
@Suite struct ExperimentsListingTests {
    @Test func theRolloutStageIsShown() throws {
        var e = try #require(AssignAnswerTests.catalog.experiments.first)
        let start = try #require(e.start)
        e.rollout = Rollout(stages: [.init(share: 0.05, hours: 24), .init(share: 0.25, hours: 48), .init(share: 1)])
        let snapshot = try ExperimentSnapshot(catalog: ExperimentCatalog(experiments: [e], products: AssignAnswerTests.catalog.products), sticky: nil)
        func stage(_ now: Date) throws -> [String: Any] {
            let body = try #require(try JSONSerialization.jsonObject(with: Data(snapshot.definitionsJSON(at: now).utf8)) as? [String: Any])
            let experiments = try #require(body["experiments"] as? [[String: Any]])
            return try #require(experiments.first?["rollout_stage"] as? [String: Any])
        }
        let second = try stage(start.addingTimeInterval(30 * 3600))
        #expect(second["index"] as? Int == 1 && second["share"] as? Double == 0.25 && second["held"] as? Bool == false)
        #expect(second["until"] as? String == RFC3339.format(start.addingTimeInterval(72 * 3600)))
        #expect(second["coverage"] as? Double == e.coverage * 0.25)
        let last = try stage(start.addingTimeInterval(100 * 3600))
        #expect(last["index"] as? Int == 2 && last["until"] is NSNull)
    }
}
