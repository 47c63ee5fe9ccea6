import Events
import ExperimentDefinitions
import Foundation
import Reporting
import Testing
import TestSupport

/// The one end rule, read through each store into a report: a subscription ends at a cancel that
/// stood or at an expiry (a pause is none), the ends are counted by kind, an undone Day-0 cancel is
/// no cancel, and `billing_issue_rate` counts users with a billing issue over those whose first
/// charge came due. Hand-made users whose every figure is worked out below.
@Suite struct SubscriptionEndConformanceTests {
    typealias F = EventFactory
    static let experimentID = "ends"
    static let billingIssueRate = Metric.named("billing_issue_rate")

    static let experiment = Experiment(
        id: experimentID, name: "Ends", status: .running, start: F.origin.date, end: nil,
        metrics: MetricsConfig(primary: .paidConversion, guardrails: [.day0CancelRate, billingIssueRate], day0WindowHours: 24,
                               minimumEffect: 0.1, sequential: false),
        forced: [:],
        variants: ["control", "ai"].map { Variant(key: $0, weight: 1, paywall: Paywall(offering: "chorus_plus", trialDays: 7, copy: .staticText("Hear every bird."))) })

    /// Trials of 7 days from hour 1: each comes due at hour 169; the report is read at day 60.
    static func events() -> [Event] {
        var out: [Event] = []
        func user(_ id: UserID, _ variant: String, trial: Bool = true, _ rest: [(EventType, Double)], reason: ExpiryReason? = nil) {
            out.append(F.exposure("x", user: id, experiment: experimentID, variant: variant, hours: 0))
            if trial { out.append(F.event("t", .trialStarted, user: id, hours: 1)) }
            for (n, (type, hours)) in rest.enumerated() {
                var e = F.event(EventID("e\(n)"), type, user: id, hours: hours, revenue: type.carriesRevenue ? 59.99 : nil)
                if type == .expired { e.reason = reason }
                out.append(e)
            }
        }
        // Control: seven trial starters.
        user("c1", "control", [(.cancelled, 3), (.uncancelled, 5), (.converted, 169)])         // undone Day-0 cancel
        user("c2", "control", [(.cancelled, 3)])                                                  // Day-0 cancel: voluntary
        user("c3", "control", [(.billingIssue, 169), (.expired, 553)], reason: .billing)           // involuntary
        user("c4", "control", [(.cancelled, 30), (.expired, 169)], reason: .voluntary)             // one end, at the cancel
        user("c5", "control", [(.converted, 169), (.expired, 500)], reason: .priceIncrease)        // other
        user("c6", "control", [(.uncancelled, 10), (.converted, 169)])                            // an uncancel with no cancel
        user("c7", "control", [(.converted, 169), (.expired, 300)], reason: .paused)               // a pause is no end
        // AI: two trial starters and a purchaser.
        user("a1", "ai", [(.billingIssue, 169), (.converted, 200)])                               // recovered in the grace
        user("a2", "ai", [(.cancelled, 2)])
        user("a3", "ai", trial: false, [(.purchased, 1)])
        return out
    }

    static let asOf = F.origin.adding(hours: 24 * 60).date

    @Test(arguments: storeFactories)
    func endsByKindUndoneCancelsAndBillingIssues(_ factory: StoreFactory) async throws {
        let events = Self.events()
        let options = ReportOptions(clock: Self.asOf)
        try await factory.withStore { store in
            _ = try store.appendAndWait(events)
            let report = try ReportBuilder.report(source: store, experiment: Self.experiment, options: options)
            let curves = Dictionary(uniqueKeysWithValues: report.survival.curves.map { ($0.key, $0) })
            #expect(curves["control"]?.ends == [.voluntary: 2, .involuntary: 1, .other: 1])
            #expect(curves["control"]?.cancels == 4)
            #expect(curves["ai"]?.ends == [.voluntary: 1])

            let control = try #require(report.variants.first { $0.key == "control" }), ai = try #require(report.variants.first { $0.key == "ai" })
            // c1's cancel was undone within the window: only c2's counts.
            #expect(control.metric(.day0CancelRate).map { [$0.count, $0.denominator] } == [1, 7])
            #expect(ai.metric(.day0CancelRate).map { [$0.count, $0.denominator] } == [1, 2])
            // Every trial has ended (each came due); a3 paid with no trial.
            #expect(control.metric(Self.billingIssueRate).map { [$0.count, $0.denominator] } == [1, 7])
            #expect(ai.metric(Self.billingIssueRate).map { [$0.count, $0.denominator] } == [1, 3])
            #expect(report.comparisons.contains { $0.metric == Self.billingIssueRate && $0.metric.direction == "lower_is_better" })

            // c6's uncancel followed no cancel: one of control's two users with an uncancel.
            let stray = report.health.filter { $0.code == "stray_uncancels" }
            #expect(stray.count == 1 && stray.first?.count == 1 && stray.first?.message.contains("“control”") == true)

            let json = JSONReportRenderer.render(report)
            #expect(json.contains(#""ends":{"control":{"voluntary":2,"involuntary":1,"other":1},"ai":{"voluntary":1,"involuntary":0,"other":0}}"#))

            // The store's report is the reference's, byte for byte.
            let reference = try ReportBuilder.report(source: ReferenceFacts(events), experiment: Self.experiment, options: options)
            #expect(json == JSONReportRenderer.render(reference))
        }
    }

    /// As of a moment before the expiry, the billing issue is there but the end is not yet.
    @Test(arguments: storeFactories)
    func anEndAfterTheAsOfMomentIsNotYetAnEnd(_ factory: StoreFactory) async throws {
        let options = ReportOptions(clock: Self.asOf, until: F.origin.adding(hours: 400).date)
        try await factory.withStore { store in
            _ = try store.appendAndWait(Self.events())
            let report = try ReportBuilder.report(source: store, experiment: Self.experiment, options: options)
            let control = try #require(report.survival.curves.first { $0.key == "control" })
            // c3's expiry (hour 553) and c5's (hour 500) are after the moment.
            #expect(control.ends == [.voluntary: 2])
        }
    }

    static let trialCancelRate = Metric.named("trial_cancel_rate")

    /// Trials of 7 days from hour 1 (Day-0 window to hour 25, trial to hour 169). Control: d1 cancels at
    /// hour 3 and undoes it at hour 40 (after the Day-0 window), d2 cancels at hour 50 and undoes it at
    /// hour 100 (within the trial). AI: r1 cancels at hour 3 and lapses at the trial's end, re-subscribes
    /// at hour 400 and expires again for billing at hour 1000 (no new start).
    static func undoneEvents() -> [Event] {
        var out: [Event] = []
        func user(_ id: UserID, _ variant: String, _ rest: [(EventType, Double, ExpiryReason?)]) {
            out.append(F.exposure("x", user: id, experiment: experimentID, variant: variant, hours: 0))
            out.append(F.event("t", .trialStarted, user: id, hours: 1))
            for (n, (type, hours, reason)) in rest.enumerated() {
                var e = F.event(EventID("e\(n)"), type, user: id, hours: hours, revenue: type.carriesRevenue ? 59.99 : nil)
                e.reason = reason
                out.append(e)
            }
        }
        user("d1", "control", [(.cancelled, 3, nil), (.uncancelled, 40, nil), (.converted, 169, nil)])
        user("d2", "control", [(.cancelled, 50, nil), (.uncancelled, 100, nil), (.converted, 169, nil)])
        user("r1", "ai", [(.cancelled, 3, nil), (.expired, 169, .voluntary), (.purchased, 400, nil), (.cancelled, 900, nil),
                          (.expired, 1000, .billing)])
        return out
    }

    /// A report as of a moment between a cancel and its undoing reads the cancel: its survival ends
    /// there and each cancel rate counts it as it stood at its window's end.
    @Test(arguments: storeFactories)
    func aCancelUndoneLaterStandsAsOfAMomentBefore(_ factory: StoreFactory) async throws {
        let events = Self.undoneEvents()
        try await factory.withStore { store in
            _ = try store.appendAndWait(events)
            #expect(try store.facts(experiment: Self.experimentID) == ReferenceFacts(events).allFacts(experiment: Self.experimentID))

            let atHour60 = try ReportBuilder.report(source: store, experiment: Self.experiment,
                                                    options: ReportOptions(clock: Self.asOf, until: F.origin.adding(hours: 60).date))
            let control60 = try #require(atHour60.variants.first { $0.key == "control" })
            #expect(atHour60.survival.curves.first { $0.key == "control" }?.ends == [.voluntary: 1])   // d2's, at hour 50
            #expect(control60.metric(.day0CancelRate).map { [$0.count, $0.denominator] } == [1, 2])     // d1's, undone after its window
            #expect(control60.metric(Self.trialCancelRate).map { [$0.count, $0.denominator] } == [1, 2]) // d2's, not yet undone

            let atDay60 = try ReportBuilder.report(source: store, experiment: Self.experiment, options: ReportOptions(clock: Self.asOf))
            let control = try #require(atDay60.variants.first { $0.key == "control" })
            #expect(atDay60.survival.curves.first { $0.key == "control" }?.ends.values.reduce(0, +) ?? 0 == 0)
            #expect(control.metric(.day0CancelRate).map { [$0.count, $0.denominator] } == [1, 2])
            #expect(control.metric(Self.trialCancelRate).map { [$0.count, $0.denominator] } == [0, 2])
            // r1's subscription ended once, at its first cancel (its kind from the expiry that followed).
            #expect(atDay60.survival.curves.first { $0.key == "ai" }?.ends == [.voluntary: 1])
            let reference = try ReportBuilder.report(source: ReferenceFacts(events), experiment: Self.experiment, options: ReportOptions(clock: Self.asOf))
            #expect(JSONReportRenderer.render(atDay60) == JSONReportRenderer.render(reference))
        }
    }

    /// Facts keep the undone cancels with when they were undone, and a re-subscription's ends.
    @Test(arguments: storeFactories)
    func factsKeepUndoneCancelsAndLaterEnds(_ factory: StoreFactory) async throws {
        try await factory.withStore { store in
            _ = try store.appendAndWait(Self.undoneEvents())
            let facts = Dictionary(uniqueKeysWithValues: try store.facts(experiment: Self.experimentID).map { ($0.userID, $0) })
            let h = { (hours: Double) in F.at(hours).microseconds }
            #expect(facts["d1"]?.undoneCancels == [EndSpan(at: h(3), undoneAt: h(40))] && facts["d1"]?.firstCancel == nil)
            #expect(facts["r1"]?.firstCancel == F.at(3) && facts["r1"]?.expiredAt == F.at(169) && facts["r1"]?.expiryKind == .voluntary)
            #expect(facts["r1"]?.laterEnds == [EndSpan(at: h(900)), EndSpan(at: h(1000))])
        }
    }
}
