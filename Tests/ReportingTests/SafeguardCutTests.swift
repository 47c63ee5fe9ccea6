import Events
import ExperimentDefinitions
import Foundation
import Testing
@testable import Reporting

/// After a safeguard stop the sample ratio check counts users first exposed before the
/// first stop, and a stopped arm is reported as of its stop.
@Suite struct SafeguardCutTests {
    typealias F = Fixtures
    static let figures = SafeguardFigures(controlUsers: 100, controlCount: 10, armUsers: 100, armCount: 30, difference: 0.2,
                                          interval: [0.1, 0.3], level: 0.05, mixingVariance: 0.01)

    static func stop(_ arm: String, at: Int64, reset: Int64? = nil, action: SafeguardsConfig.Action = .stopArm) -> SafeguardStop {
        SafeguardStop(experiment: "exp", arm: arm, metric: "day0_cancel_rate", action: action, stoppedAt: Timestamp(microseconds: at),
                      figures: figures, resetAt: reset.map(Timestamp.init(microseconds:)), resetBy: reset.map { _ in "ana" })
    }

    /// Control users on days 0, 2, 6 and 7; `ai` users on days 1 and 3 (before a stop on day 5) and 6 and 8.
    static func accumulate(_ stops: [SafeguardStop]) -> ReportAccumulator {
        let s = F.start, d = F.day
        var acc = ReportAccumulator(experiment: F.experiment(), options: ReportOptions(clock: F.date(s + 10 * d)),
                                    inputs: ReportInputs(asOf: F.date(s + 10 * d), safeguardStops: stops))
        for (i, day) in [0, 2, 6, 7].enumerated() { acc.add(UserFacts.row(experiment: "exp", userID: UserID("c\(i)"), variant: "control", firstExposure: s + Int64(day) * d)) }
        for (i, day) in [1, 3, 6, 8].enumerated() { acc.add(UserFacts.row(experiment: "exp", userID: UserID("a\(i)"), variant: "ai", firstExposure: s + Int64(day) * d)) }
        return acc
    }

    @Test func aStoppedArmKeepsOnlyItsUsersFromBeforeTheStop() throws {
        let acc = Self.accumulate([Self.stop("ai", at: F.start + 5 * F.day)])
        #expect(acc.tallies.map(\.users) == [4, 2])
        #expect(acc.exposedWhileStopped == ["ai": 2])
        #expect(acc.tallies.map(\.usersBeforeFirstStop) == [2, 2])
        let report = try ReportAnalyzer.analyze(acc)
        #expect(report.srm.counts == [2, 2])
        #expect(report.srm.countedBefore == F.date(F.start + 5 * F.day))
        #expect(report.variants.map(\.users) == [4, 2])
        #expect(report.health.contains { $0.code == "safeguard" && $0.message.hasPrefix("2 users were first exposed to “ai” while a safeguard stop held it") })
        let srmLine = try #require(report.health.first { $0.code == "srm" })
        #expect(srmLine.message.contains("users first exposed before the first safeguard stop"))
    }

    @Test func afterAResetTheArmTakesUsersAgainButTheRatioCheckStaysCut() throws {
        let acc = Self.accumulate([Self.stop("ai", at: F.start + 5 * F.day, reset: F.start + 7 * F.day)])
        #expect(acc.tallies.map(\.users) == [4, 3])
        #expect(acc.exposedWhileStopped == ["ai": 1])
        #expect(try ReportAnalyzer.analyze(acc).srm.counts == [2, 2])
    }

    @Test func aStopAfterTheAsOfTimeCutsNothing() throws {
        let acc = Self.accumulate([Self.stop("ai", at: F.start + 11 * F.day)])
        #expect(acc.tallies.map(\.users) == [4, 4])
        #expect(acc.exposedWhileStopped.isEmpty)
        let srm = try ReportAnalyzer.analyze(acc).srm
        #expect(srm.counts == [4, 4] && srm.countedBefore == nil)
    }

    @Test func stoppingTheExperimentCutsEveryArmButTheControl() {
        let acc = Self.accumulate([Self.stop("ai", at: F.start + 5 * F.day, action: .stopExperiment)])
        #expect(acc.tallies.map(\.users) == [4, 2])
        #expect(acc.exposedWhileStopped == ["ai": 2])
    }

    @Test func anotherExperimentsStopIsIgnored() {
        var other = Self.stop("ai", at: F.start + 5 * F.day)
        other.experiment = "other"
        let acc = Self.accumulate([other])
        #expect(acc.tallies.map(\.users) == [4, 4])
    }
}
