import Events
import ExperimentDefinitions
import Foundation
import Safeguards
import Statistics
import Testing
import TestSupport

/// Each safeguard's mixing scale on every store: fixed at the first look that tests the arm,
/// kept once (the first writer wins), and read by every later look and every process or node.
@Suite struct SafeguardScaleConformanceTests {
    typealias F = EventFactory

    /// Two arms of 3-day trials guarded on Day-0 cancels alone, tested from 10 exposed users an arm.
    static let experiment: Experiment = {
        let paywall = Paywall(offering: "chorus_plus", trialDays: 3, copy: .staticText("Hear every bird."))
        return Experiment(id: "guarded", name: "Guarded", status: .running, start: F.origin.date,
                          variants: [Variant(key: "control", paywall: paywall), Variant(key: "treatment", paywall: paywall)],
                          safeguards: SafeguardsConfig(metrics: [.day0CancelRate], minUsers: 10, checkMinutes: 60))
    }()

    /// `users` trial starters of `variant` exposed at `hours`, the first `cancels` of them cancelling an hour into the trial.
    static func starters(_ prefix: String, variant: String, users: Int, cancels: Int, hours: Double) -> [Event] {
        (0..<users).flatMap { n -> [Event] in
            let user = UserID("\(prefix)-\(n)")
            var events = [F.exposure(EventID("\(prefix)-\(n)-x"), user: user, experiment: "guarded", variant: variant, hours: hours),
                          F.event(EventID("\(prefix)-\(n)-t"), .trialStarted, user: user, hours: hours + 0.1)]
            if n < cancels { events.append(F.event(EventID("\(prefix)-\(n)-c"), .cancelled, user: user, hours: hours + 1)) }
            return events
        }
    }

    /// The figures of the Day-0 test of `treatment` at `hours`.
    static func look(_ store: any EventStore, at hours: Double) throws -> SafeguardFigures {
        let findings = try SafeguardEvaluator.evaluate(experiment, facts: store, scales: store, now: F.at(hours).date)
        return try #require(findings.first { $0.arm == "treatment" }?.figures)
    }

    static func scale(_ tau2: Double, metric: String = "day0_cancel_rate", at hours: Double = 30) -> SafeguardScale {
        SafeguardScale(experiment: "guarded", arm: "treatment", metric: metric, mixingVariance: tau2, controlRate: 0.2, fixedAt: F.at(hours))
    }

    @Test(arguments: storeFactories)
    func aScaleIsKeptOnceAndReadBackWhole(_ factory: StoreFactory) async throws {
        try await factory.withStore { store in
            let first = Self.scale(0.0016), other = Self.scale(1.0 / 3, metric: "refund_rate")
            let kept = try [first, Self.scale(0.0036, at: 54), other, Self.scale(0.5, metric: "refund_rate")].map { try store.fixSafeguardScale($0) }
            // A second scale of the same (experiment, arm, metric) is not kept: the first comes back.
            #expect(kept == [first, first, other, other])
        }
    }

    /// The first look that tests the arm fixes τ² from the control's rate then (20%); a later look, the
    /// control's rate now 60%, tests with the same τ² and reports it.
    @Test(arguments: storeFactories)
    func theFirstLookFixesTheScaleAndALaterLookUsesIt(_ factory: StoreFactory) async throws {
        try await factory.withStore { store in
            _ = try store.appendAndWait(Self.starters("c1", variant: "control", users: 20, cancels: 4, hours: 0)
                + Self.starters("t1", variant: "treatment", users: 20, cancels: 4, hours: 0))
            let fixed = OneSidedSequentialTest.mixingVariance(controlRate: 0.2, minimumHarm: 0.2)
            let first = try Self.look(store, at: 30)
            #expect(first.controlUsers == 20 && first.controlCount == 4)
            #expect(first.mixingVariance == fixed)

            _ = try store.appendAndWait(Self.starters("c2", variant: "control", users: 20, cancels: 20, hours: 40))
            let later = try Self.look(store, at: 70)
            #expect(later.controlUsers == 40 && later.controlCount == 24)
            #expect(later.mixingVariance == fixed,
                    "τ² \(later.mixingVariance); from the control's rate now it would be \(OneSidedSequentialTest.mixingVariance(controlRate: 0.6, minimumHarm: 0.2))")
        }
    }

    /// Two processes (two nodes on one PostgreSQL database) evaluating at once, each seeing a different
    /// control rate, test with one τ²: whichever fixed it first.
    @Test(arguments: storeFactories)
    func twoEvaluatorsAtOnceTestWithOneScale(_ factory: StoreFactory) async throws {
        try await factory.withTwoStores { first, second in
            _ = try first.appendAndWait(Self.starters("c1", variant: "control", users: 20, cancels: 4, hours: 0)
                + Self.starters("t1", variant: "treatment", users: 20, cancels: 4, hours: 0)
                + Self.starters("c2", variant: "control", users: 20, cancels: 20, hours: 40))
            // At hour 30 the control's rate is 20%; at hour 70, 60%.
            let (a, b) = try await withThrowingTaskGroup(of: (Int, SafeguardFigures).self) { group in
                group.addTask { (0, try Self.look(first, at: 30)) }
                group.addTask { (1, try Self.look(second, at: 70)) }
                var figures: [Int: SafeguardFigures] = [:]
                for try await (i, f) in group { figures[i] = f }
                return (figures[0]!, figures[1]!)
            }
            #expect(a.controlCount == 4 && b.controlCount == 24)
            #expect(a.mixingVariance == b.mixingVariance, "\(a.mixingVariance) and \(b.mixingVariance)")
            let either = [0.2, 0.6].map { OneSidedSequentialTest.mixingVariance(controlRate: $0, minimumHarm: 0.2) }
            #expect(either.contains(a.mixingVariance))
            // And a third look, from either process, reads the same.
            #expect(try Self.look(second, at: 80).mixingVariance == a.mixingVariance)
            #expect(try Self.look(first, at: 80).mixingVariance == a.mixingVariance)
        }
    }
}
