import ExperimentDefinitions
import Foundation
import Testing
@testable import Assignment

/// A bandit draws new users with the allocation period's weights; a safeguard-stopped arm leaves
/// the draw; the answer names the period in force.
@Suite struct BanditAssignmentTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    static let hour = 3600.0

    static func bandit() throws -> AssignableExperiment {
        let paywall = Paywall(offering: "chorus_plus", trialDays: 7, copy: .staticText("x"))
        var e = Experiment(id: "bandit", name: "Bandit", status: .running, start: start,
                           variants: ["control", "b", "c"].map { Variant(key: $0, paywall: paywall) })
        e.allocation = AllocationConfig(reward: Metric.named("trial_start_rate"), updateHours: 24)
        return try AssignableExperiment(e)
    }

    static func shares(_ e: AssignableExperiment, at now: Date, users: Int = 30_000) -> [Double] {
        let assigner = Assigner(experiments: [e], clock: { now })
        var counts = [0, 0, 0]
        for n in 0..<users {
            let a = assigner.assign(userID: UserID("user-\(n)"))[0]
            if let i = a.variantIndex, a.inExperiment { counts[i] += 1 }
        }
        return counts.map { Double($0) / Double(users) }
    }

    @Test func newUsersGetThePeriodsWeights() throws {
        let periods = [BanditPeriod(from: Self.start, weights: [1 / 3, 1 / 3, 1 / 3]),
                       BanditPeriod(from: Self.start.addingTimeInterval(24 * Self.hour), weights: [0.1, 0.7, 0.2])]
        let e = try Self.bandit().withPeriods(periods)
        let first = Self.shares(e, at: Self.start.addingTimeInterval(Self.hour))
        let second = Self.shares(e, at: Self.start.addingTimeInterval(25 * Self.hour))
        for (s, w) in zip(first, [1.0 / 3, 1.0 / 3, 1.0 / 3]) { #expect(abs(s - w) < 0.012, "\(first)") }
        for (s, w) in zip(second, [0.1, 0.7, 0.2]) { #expect(abs(s - w) < 0.012, "\(second)") }
        #expect(e.allocationPeriodStart(at: Self.start.addingTimeInterval(25 * Self.hour)) == Self.start.addingTimeInterval(24 * Self.hour))
        #expect(e.allocationPeriodStart(at: Self.start.addingTimeInterval(Self.hour)) == Self.start)
        // The answer's text, formatted once per period: 1_800_000_000 is 2027-01-15T08:00:00Z.
        #expect(e.allocationPeriodText(at: Self.start.addingTimeInterval(Self.hour)) == "2027-01-15T08:00:00Z")
        #expect(e.allocationPeriodText(at: Self.start.addingTimeInterval(25 * Self.hour)) == "2027-01-16T08:00:00Z")
        let odd = try Self.bandit().withPeriods([BanditPeriod(from: Self.start.addingTimeInterval(0.25), weights: [0.2, 0.3, 0.5])])
        #expect(odd.allocationPeriodText(at: Self.start.addingTimeInterval(Self.hour)) == "2027-01-15T08:00:00.25Z")
        // With no period read yet, the file's weights and the start.
        let bare = try Self.bandit()
        #expect(bare.allocationPeriodStart(at: Self.start.addingTimeInterval(99 * Self.hour)) == Self.start)
        for s in Self.shares(bare, at: Self.start.addingTimeInterval(Self.hour), users: 9000) { #expect(abs(s - 1 / 3) < 0.02) }
        // A fixed experiment names no period.
        #expect(try AssignableExperiment(id: "x", status: .running, variants: [("a", 1), ("b", 1)]).allocationPeriodStart(at: Self.start) == nil)
    }

    @Test func aStoppedArmLeavesTheDraw() throws {
        let e = try Self.bandit().withPeriods([BanditPeriod(from: Self.start, weights: [0.2, 0.5, 0.3])])
            .withStops(ArmStops(stoppedArms: [false, true, false], holdStageAt: Self.start))
        let s = Self.shares(e, at: Self.start.addingTimeInterval(Self.hour))
        #expect(s[1] == 0)
        #expect(abs(s[0] - 0.4) < 0.012 && abs(s[2] - 0.6) < 0.012, "\(s)")
        // The periods survive a change of stops, and the stops a change of periods.
        #expect(e.periods.count == 1 && e.withPeriods([]).stops.stoppedArms == [false, true, false])
    }
}
