import Events
import ExperimentDefinitions
import Foundation
import Testing
@testable import Safeguards

/// Safeguards read Day-0 cancels as the report does: a trial starter enters once the
/// Day-0 window has passed; 2 h after the trial start the user is not yet in, 25 h after it is.
@Suite struct Day0MaturityTests {
    static let hour: Int64 = 3_600_000_000
    static let start: Int64 = 1_796_083_200_000_000

    func facts(trialStart: Int64, cancel: Int64? = nil) -> FactTimes {
        FactTimes(arm: 0, firstExposure: trialStart - Self.hour, trialStart: trialStart, firstCancel: cancel)
    }

    @Test func aTrialStarterEntersOnceTheWindowHasPassed() {
        let outcome = MatureOutcome(metric: .day0CancelRate, experiment: Experiment.guarded())
        let t = Self.start, h = Self.hour
        #expect(outcome.value(facts(trialStart: t), arm: 0, now: t + 2 * h) == nil)
        #expect(outcome.value(facts(trialStart: t, cancel: t + h), arm: 0, now: t + 2 * h) == nil)
        #expect(outcome.value(facts(trialStart: t), arm: 0, now: t + 25 * h) == false)
        #expect(outcome.value(facts(trialStart: t, cancel: t + h), arm: 0, now: t + 25 * h) == true)
        #expect(outcome.value(facts(trialStart: t, cancel: t + 24 * h), arm: 0, now: t + 24 * h) == true)
    }
}
