import Events
import ExperimentDefinitions
import Foundation
import Reporting
import Testing
import TestSupport
@testable import Safeguards

/// Safeguards read both cancel rates as the report does: a trial cancel against each trial's own
/// length (the store's `trial_days`, else the arm's), and each cancel as it stood at its window's end
/// (a Day-0 cancel undone after the window still counts; one undone within it does not).
@Suite struct TrialCancelReadingTests {
    static let hour: Int64 = 3_600_000_000
    static let day: Int64 = 86_400_000_000
    static let origin = Timestamp(rfc3339: "2026-12-01T00:00:00Z")!
    static let trialCancelRate = Metric.named("trial_cancel_rate")

    /// A trial starter's facts from its events: exposure at hour 0, a trial of `granted` days (nil: the
    /// store did not say) at hour 1, then `life` (type, hours).
    static func facts(_ user: UserID, variant: String = "control", granted: Int? = nil, _ life: [(EventType, Double)]) -> UserFacts {
        var events = [Event(id: "x", type: .exposure, userID: user, timestamp: origin, experiment: "guarded", variant: variant),
                      Event(id: "t", type: .trialStarted, userID: user, timestamp: origin.adding(hours: 1), trialDays: granted)]
        for (n, (type, hours)) in life.enumerated() {
            events.append(Event(id: EventID("l\(n)"), type: type, userID: user, timestamp: origin.adding(hours: hours)))
        }
        return FactsBuilder.facts(userID: user, events: events)[0]
    }

    static func value(_ metric: Metric, _ f: UserFacts, hoursAfterOrigin hours: Double) -> Bool? {
        MatureOutcome(metric: metric, experiment: Experiment.guarded()).value(FactTimes(f, arm: 0), arm: 0,
                                                                               now: origin.adding(hours: hours).microseconds)
    }

    @Test func aTrialCancelIsReadAgainstTheTrialTheStoreGranted() {
        // The arm offers 3 days; the store granted 1: the cancel at hour 40 came after that trial ended.
        let late = Self.facts("u", granted: 1, [(.cancelled, 40)])
        #expect(Self.value(Self.trialCancelRate, late, hoursAfterOrigin: 30) == false)
        #expect(Self.value(Self.trialCancelRate, late, hoursAfterOrigin: 100) == false)
        // Granted 5: mature only after its own end (hour 121), and the cancel at hour 100 falls inside it.
        let long = Self.facts("v", granted: 5, [(.cancelled, 100)])
        #expect(Self.value(Self.trialCancelRate, long, hoursAfterOrigin: 80) == nil)
        #expect(Self.value(Self.trialCancelRate, long, hoursAfterOrigin: 121) == true)
    }

    @Test func aCancelCountsAsItStoodAtItsWindowsEnd() {
        // Cancelled at hour 3, undone at hour 40: after the Day-0 window (hours 1 to 25), within the trial.
        let undoneLate = Self.facts("u", [(.cancelled, 3), (.uncancelled, 40)])
        #expect(Self.value(.day0CancelRate, undoneLate, hoursAfterOrigin: 26) == true)
        #expect(Self.value(.day0CancelRate, undoneLate, hoursAfterOrigin: 100) == true)
        #expect(Self.value(Self.trialCancelRate, undoneLate, hoursAfterOrigin: 100) == false)
        // Undone at hour 10, within the window: no Day-0 cancel.
        let undoneSoon = Self.facts("v", [(.cancelled, 3), (.uncancelled, 10)])
        #expect(Self.value(.day0CancelRate, undoneSoon, hoursAfterOrigin: 26) == false)
    }

    /// The same users through a safeguard and through a report's mature trial cancel rate agree.
    @Test func aSafeguardAndAReportCountTheSameTrialCancels() throws {
        var e = Experiment.guarded(minUsers: 1)
        e.safeguards?.metrics = [Self.trialCancelRate]
        e.metrics.guardrails = [Self.trialCancelRate]
        let rows = ["control", "treatment"].flatMap { arm in [
            Self.facts(UserID("\(arm)-1"), variant: arm, granted: 1, [(.cancelled, 40)]),   // after its own trial
            Self.facts(UserID("\(arm)-2"), variant: arm, granted: 5, []),                   // no cancel
            Self.facts(UserID("\(arm)-3"), variant: arm, [(.cancelled, 3), (.uncancelled, 40)]),
            Self.facts(UserID("\(arm)-4"), variant: arm, [(.cancelled, 50)]),
        ] }.sorted { $0.userID < $1.userID }
        let now = Self.origin.adding(hours: 24 * 40).date
        let findings = try SafeguardEvaluator.evaluate(e, facts: MemoryFacts(rows: rows), scales: MemorySafeguardScales(), now: now)
        let figures = try #require(findings.first?.figures)
        // Only the fourth: the first cancelled after its own trial, the third undid its cancel in time.
        #expect(figures.controlUsers == 4 && figures.controlCount == 1)

        var acc = ReportAccumulator(experiment: e, options: ReportOptions(clock: now))
        for f in rows { acc.add(f) }
        let report = try ReportAnalyzer.analyze(acc)
        let mature = try #require(Metric(name: "trial_cancel_rate_d\(e.maturityDays)"))
        #expect(report.variants.map { $0.metric(mature)?.count } == [figures.controlCount, figures.armCount])
    }
}
