import ExperimentDefinitions
import Foundation
import Testing
@testable import Assignment

/// The rollout stage's share multiplies coverage; a safeguard stop answers the arm's users,
/// sticky ones included, with the control's paywall.
@Suite struct RolloutAndStopsTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    static let rollout = Rollout(stages: [.init(share: 0.1, hours: 24), .init(share: 0.5, hours: 24), .init(share: 1)])

    static func experiment(stops: ArmStops = .none, sticky: Bool = false, coverage: Double = 0.8) throws -> AssignableExperiment {
        try AssignableExperiment(id: "ramp", status: .running, start: start, coverage: coverage, sticky: sticky,
                                 variants: [("control", 1), ("treat", 1)], rollout: rollout, stops: stops)
    }

    static func inShare(_ e: AssignableExperiment, at now: Date, users: Int = 20_000) -> (share: Double, ins: Set<String>) {
        let assigner = Assigner(experiments: [e], clock: { now })
        var ins: Set<String> = []
        for n in 0..<users {
            let a = assigner.assign(userID: "user-\(n)")[0]
            if a.inExperiment { ins.insert("user-\(n)") }
        }
        return (Double(ins.count) / Double(users), ins)
    }

    @Test func eachStageLetsInCoverageTimesItsShareAndNobodyLeaves() throws {
        let e = try Self.experiment()
        let day = 24.0 * 3600
        let first = Self.inShare(e, at: Self.start.addingTimeInterval(3600))
        let second = Self.inShare(e, at: Self.start.addingTimeInterval(day + 1))
        let last = Self.inShare(e, at: Self.start.addingTimeInterval(3 * day))
        #expect(abs(first.share - 0.08) < 0.01, "\(first.share)")
        #expect(abs(second.share - 0.4) < 0.015, "\(second.share)")
        #expect(abs(last.share - 0.8) < 0.015, "\(last.share)")
        #expect(first.ins.isSubset(of: second.ins) && second.ins.isSubset(of: last.ins))
        #expect(e.stageIndex(at: Self.start.addingTimeInterval(day)) == 1)
        // Without a rollout the ranges are the plain ones.
        let plain = try AssignableExperiment(id: "ramp", status: .running, start: Self.start, coverage: 0.8, variants: [("control", 1), ("treat", 1)])
        #expect(Self.inShare(plain, at: Self.start.addingTimeInterval(3600)).ins == last.ins)
    }

    @Test func aStoppedArmGetsTheControlsPaywallAndTheStageIsHeld() throws {
        let day = 24.0 * 3600
        let stops = ArmStops(stoppedArms: [false, true], holdStageAt: Self.start.addingTimeInterval(3600))
        let e = try Self.experiment(stops: stops)
        let now = Self.start.addingTimeInterval(3 * day)
        #expect(e.stageIndex(at: now) == 0)
        let assigner = Assigner(experiments: [e], clock: { now })
        var safeguarded = 0, control = 0
        for n in 0..<5_000 {
            let a = assigner.assign(userID: "user-\(n)")[0]
            switch a.reason {
            case .safeguard:
                safeguarded += 1
                #expect(a.variantIndex == nil && !a.inExperiment && a.paywallVariantIndex == 0)
                #expect(e.bucket(userID: "user-\(n)") >= 0.5)   // the treatment's half
            case .assigned:
                control += 1
                #expect(a.variantIndex == 0)
            default: break
            }
        }
        // Held at the first stage: 0.8 × 0.1 of users, half of them in the stopped arm.
        #expect(abs(Double(safeguarded + control) / 5_000 - 0.08) < 0.015)
        #expect(safeguarded > 100 && control > 100)
    }

    @Test func stickyUsersOfAStoppedArmAreAnsweredWithTheControlToo() throws {
        let sticky = StickyLookupClosure { _, user in user == "old" ? "treat" : nil }
        let stopped = try Self.experiment(stops: ArmStops(stoppedArms: [false, true], holdStageAt: Self.start), sticky: true)
        let now = Self.start.addingTimeInterval(3600)
        let a = Assigner(experiments: [stopped], sticky: sticky, clock: { now }).assign(userID: "old")[0]
        #expect(a.reason == .safeguard && a.variantKey == nil && a.paywallVariantIndex == 0)
        // Lifted: the sticky user is back in the treatment, even though the stage would not take them now.
        let lifted = stopped.withStops(.none)
        let b = Assigner(experiments: [lifted], sticky: sticky, clock: { now }).assign(userID: "old")[0]
        #expect(b.reason == .sticky && b.variantKey == "treat")
        // The two-step path the server uses for remote stores agrees.
        let assigner = Assigner(experiments: [stopped], sticky: sticky, clock: { now })
        let pending = assigner.prepare(userID: "old", experimentsAt: [0])
        #expect(assigner.finish(pending, stickyKeys: ["treat"])[0].reason == .safeguard)
    }
}
