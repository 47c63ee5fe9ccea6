import Events
import ExperimentDefinitions
import Foundation
import Safeguards
import Testing
import TestSupport
@testable import Allocation

/// A bandit's safeguards read the period-stratified comparison, not the pooled one: when
/// the base rate drifts while the weights move, the pooled comparison would stop a harmless arm and
/// miss a harmful one. A stop removes the arm from the next period's draw.
@Suite struct BanditSafeguardTests {
    static let t0 = BanditRun.t0
    static let hour: Int64 = 3_600_000_000

    /// Three arms guarded on Day-0 cancels, with 24-hour periods.
    static func experiment() -> Experiment {
        var e = BanditRun.experiment(arms: 3, burnIn: 100)
        e.variants[1].key = "late"
        e.variants[2].key = "early"
        e.safeguards = SafeguardsConfig(metrics: [.day0CancelRate], alpha: 0.05, minUsers: 300, checkMinutes: 15)
        return e
    }

    /// Ten days of `perDay` trial starters a day. Days 0-4: the Day-0 cancel rate is 10%, weights
    /// control 0.3, late 0.1, early 0.6; days 5-9: 30%, and weights 0.3, 0.6, 0.1. `late` cancels as
    /// the control does; `early` 6 points more in every period. Cancels are spread exactly (every
    /// k-th user), so the figures carry no chance.
    static func facts(perDay: Int = 2000) -> [UserFacts] {
        let start = Timestamp(t0).microseconds, day = 24 * hour
        var rows: [UserFacts] = []
        for d in 0..<10 {
            let weights = d < 5 ? [0.3, 0.1, 0.6] : [0.3, 0.6, 0.1]
            let base = d < 5 ? 0.10 : 0.30
            var n = 0
            for (arm, key) in ["control", "late", "early"].enumerated() {
                let users = Int((Double(perDay) * weights[arm]).rounded())
                let rate = base + (arm == 2 ? 0.06 : 0)
                for i in 0..<users {
                    let exposure = start + Int64(d) * day + day * Int64(n) / Int64(perDay)
                    n += 1
                    var f = UserFacts(experiment: "bandit", userID: UserID("\(key)-\(d)-\(i)"), variant: key,
                                      firstExposure: Timestamp(microseconds: exposure))
                    f.trialStart = Timestamp(microseconds: exposure + 60_000_000)
                    // Exactly `rate` of the cell cancel within the first hour of the trial.
                    if Int(Double(i + 1) * rate) > Int(Double(i) * rate) {
                        f.firstCancel = Timestamp(microseconds: exposure + hour)
                    }
                    rows.append(f)
                }
            }
        }
        return rows.sorted { $0.firstExposure < $1.firstExposure }
    }

    static func store(_ rows: [UserFacts]) -> MemoryBanditStore {
        let store = MemoryBanditStore()
        for f in rows { store.append(f) }
        return store
    }

    /// Every user's Day-0 window has passed.
    static let now = t0.addingTimeInterval(11 * 86_400 + 3600)

    @Test func aBanditsSafeguardsReadTheStratifiedComparison() throws {
        let store = Self.store(Self.facts())
        let bandit = Self.experiment()
        var fixed = bandit
        fixed.allocation = nil
        // Scales of their own: the two read the same experiment id, and the first would fix the second's.
        let stratified = try SafeguardEvaluator.evaluate(bandit, facts: store, scales: MemorySafeguardScales(), now: Self.now)
        let pooled = try SafeguardEvaluator.evaluate(fixed, facts: store, scales: MemorySafeguardScales(), now: Self.now)
        for f in stratified + pooled { print(SafeguardText.finding(f)) }
        let late = try #require(stratified.first { $0.arm == "late" }), early = try #require(stratified.first { $0.arm == "early" })
        let pooledLate = try #require(pooled.first { $0.arm == "late" }), pooledEarly = try #require(pooled.first { $0.arm == "early" })
        // Pooled, the harmless arm looks harmful (more of its users came when everyone cancelled more)
        // and the harmful one looks harmless (most of its users came before).
        #expect(pooledLate.harmful && !pooledEarly.harmful)
        #expect(try #require(pooledEarly.figures).difference < 0)
        // Stratified, each is what it is: late +0 points, early +6 points.
        #expect(!late.harmful && early.harmful)
        let l = try #require(late.figures), e = try #require(early.figures)
        #expect(abs(l.difference) < 0.002 && abs(e.difference - 0.06) < 0.002, "\(l.difference) \(e.difference)")
        #expect(l.stratified?.periods == 10 && e.stratified?.periods == 10)
        #expect(abs((e.stratified?.armRate ?? 0) - (e.stratified?.controlRate ?? 0) - e.difference) < 1e-12)
        // The pooled counts stay beside the stratified rates.
        #expect(e.armUsers == 5 * 1200 + 5 * 200 && e.controlUsers == 10 * 600, "\(e.armUsers) \(e.controlUsers)")
        // The figures survive the store's JSON column.
        #expect(SafeguardFigures(jsonText: e.json.serialized()) == e)
    }

    @Test func aStopRemovesTheArmFromTheNextPeriod() throws {
        let store = Self.store(Self.facts())
        let e = Self.experiment()
        // Days 0-9's boundaries were recorded as the run went; at `now` periods 10 (carried) and 11 are due.
        for d in 0..<10 { _ = try AllocationUpdater.run(experiments: [e], store: store, now: Self.t0.addingTimeInterval(Double(d) * 86_400)) }
        let outcome = try SafeguardEvaluator.run(experiments: [e], store: store, now: Self.now)
        #expect(outcome.newStops.map(\.arm) == ["early"])
        _ = try AllocationUpdater.run(experiments: [e], store: store, now: Self.now)
        let last = try #require(try store.allocationPeriods(experiment: "bandit").last)
        #expect(last.index == 11)
        let w = Dictionary(uniqueKeysWithValues: last.weights.map { ($0.variant, $0.weight) })
        #expect(w["early"] == 0 && abs((w["control"] ?? 0) + (w["late"] ?? 0) - 1) < 1e-9, "\(w)")
    }
}
