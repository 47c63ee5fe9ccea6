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
}
