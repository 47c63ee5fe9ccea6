import Events
import ExperimentDefinitions
import Foundation
import Statistics
@testable import Allocation

/// A simulated bandit with known truth: `usersPerDay` users a day for `days` days, each
/// drawn with the weights `AllocationUpdater` recorded at that day's boundary, rewarded (a trial
/// start within hours) with the arm's true rate that day. The same users, with the same chance
/// draws, also go through a fixed equal split, so the two allocations can be compared.
struct BanditRun {
    static let t0 = Date(timeIntervalSince1970: 1_796_083_200)   // 2026-12-01T00:00:00Z
    static let hour: Int64 = 3_600_000_000

    let experiment: Experiment
    let store = MemoryBanditStore()
    /// Per period (day): the weights in force and the users per arm.
    var weights: [[Double]] = []
    /// cells[arm][period]
    var cells: [[StratifiedRates.Cell]]
    var banditRewards = 0
    var fixedRewards = 0

    static func experiment(arms: Int, minShare: Double = 0.05, burnIn: Int = 100) -> Experiment {
        let paywall = Paywall(offering: "chorus_plus", trialDays: 7, copy: .staticText("Hear every bird."))
        var e = Experiment(id: "bandit", name: "Bandit", status: .running, start: t0,
                           variants: (0..<arms).map { Variant(key: $0 == 0 ? "control" : "arm\($0)", paywall: paywall) })
        e.metrics.primary = Metric.named("trial_start_rate")
        e.allocation = AllocationConfig(reward: Metric.named("trial_start_rate"), updateHours: 24, minShare: minShare, burnInUsers: burnIn)
        return e
    }

    /// `rate(arm, day)`: the true reward rate.
    init(seed: UInt64, arms: Int, days: Int, usersPerDay: Int, rate: (Int, Int) -> Double) throws {
        experiment = Self.experiment(arms: arms)
        cells = Array(repeating: Array(repeating: StratifiedRates.Cell(users: 0, count: 0), count: days), count: arms)
        var rng = SplitMix64(seed: seed)
        let start = Timestamp(Self.t0).microseconds, day = 24 * Self.hour
        var n = 0
        for d in 0..<days {
            let boundary = Self.t0.addingTimeInterval(Double(d) * 86_400)
            _ = try AllocationUpdater.run(experiments: [experiment], store: store, now: boundary)
            let period = try store.allocationPeriods(experiment: "bandit").last { $0.index <= d }!
            let w = period.weights.map(\.weight)
            weights.append(w)
            for k in 0..<usersPerDay {
                let exposure = start + Int64(d) * day + day * Int64(k) / Int64(usersPerDay)
                var u = Double.random(in: 0..<1, using: &rng), arm = 0
                while arm < arms - 1 && u >= w[arm] { u -= w[arm]; arm += 1 }
                let fixedArm = Int.random(in: 0..<arms, using: &rng)
                let chance = Double.random(in: 0..<1, using: &rng)
                let delay = Int64.random(in: 0..<(6 * Self.hour), using: &rng)
                var f = UserFacts(experiment: "bandit", userID: UserID("u\(n)"), variant: experiment.variants[arm].key, firstExposure: Timestamp(microseconds: exposure))
                if chance < rate(arm, d) {
                    f.trialStart = Timestamp(microseconds: exposure + delay)
                    banditRewards += 1
                    cells[arm][d].count += 1
                }
                if chance < rate(fixedArm, d) { fixedRewards += 1 }
                cells[arm][d].users += 1
                store.append(f)
                n += 1
            }
        }
    }

    /// Each treatment arm against the control, stratified by period.
    func comparisons(level: Double = 0.95) -> [StratifiedRates.Comparison?] {
        (1..<cells.count).map { StratifiedRates.compare(control: cells[0], treatment: cells[$0], level: level) }
    }

    /// A bandit's verdict: the best arm by `chance_best`, when at least 0.95 and its
    /// stratified comparison against the control has a Holm-adjusted p below `alpha`.
    func winner(alpha: Double = 0.05) throws -> Int? {
        guard let chance = StratifiedRates.chanceBest(cells), let best = chance.indices.max(by: { chance[$0] < chance[$1] }),
              best != 0, chance[best] >= 0.95 else { return nil }
        let ps = comparisons().map { $0?.pValue ?? 1 }
        let adjusted = try MultipleTesting.holm(ps)
        return adjusted[best - 1] < alpha ? best : nil
    }

    /// The pooled (unstratified) difference of `arm` against the control, with a 95% interval.
    func pooled(_ arm: Int) -> (difference: Double, interval: [Double]) {
        let c = cells[0].reduce((0, 0)) { ($0.0 + $1.users, $0.1 + $1.count) }, t = cells[arm].reduce((0, 0)) { ($0.0 + $1.users, $0.1 + $1.count) }
        let pc = Double(c.1) / Double(c.0), pt = Double(t.1) / Double(t.0)
        let se = (pc * (1 - pc) / Double(c.0) + pt * (1 - pt) / Double(t.0)).squareRoot()
        return (pt - pc, [pt - pc - 1.959964 * se, pt - pc + 1.959964 * se])
    }
}
