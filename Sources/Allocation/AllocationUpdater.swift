import Events
import ExperimentDefinitions
import Foundation

/// One period boundary of every bandit: facts → each arm's mature rewards → the
/// period's weights → a durable record through the store. Scheduled by the server under its lease
/// (the safeguard lease); run once by `abctl allocation update`.
///
/// A period is recorded once: the store keeps a second record of (experiment, period) out. No
/// period is skipped: when boundaries passed with no node up (or no lease holder), each missed
/// period is recorded with the weights that were in force through it (the last record's, rule
/// `carried`), and the current one is computed.
public enum AllocationUpdater {
    static let microsPerDay: Int64 = 86_400_000_000

    /// Per arm, mature users and their rewards at `now`: a user is mature `rewardDays` after first
    /// exposure, and rewarded when the trial start (`trial_start_rate…`) or first payment
    /// (`paid_conversion_dN`) came before then. Forced (QA) users are left out.
    public static func basis(_ e: Experiment, allocation: AllocationConfig, facts: any FactsReader, now: Date) throws -> (users: [Int], rewards: [Int]) {
        let keys = e.variants.map(\.key)
        var users = [Int](repeating: 0, count: keys.count), rewards = users
        let horizon = Int64(allocation.rewardDays) * microsPerDay
        let nowMicros = Timestamp(now).microseconds
        let paid = allocation.reward.definition.name == "paid_conversion"
        try facts.forEachFactTimes(experiment: e.id, until: Timestamp(microseconds: nowMicros + 1), variants: keys,
                                   excluding: Set(e.forced.keys)) { f in
            let end = f.firstExposure + horizon
            guard end <= nowMicros else { return }
            users[f.arm] += 1
            if let t = paid ? f.firstPaid : f.trialStart, t < end { rewards[f.arm] += 1 }
        }
        return (users, rewards)
    }

    /// The weights of period `index` of `e` at `now`: the file's in period 0 and until every running
    /// arm has `burn_in_users` mature users, else learned. `stopped` arms weigh 0.
    public static func compute(_ e: Experiment, index: Int, stopped: Set<String>, facts: any FactsReader, now: Date) throws -> AllocationPeriod {
        guard let a = e.allocation, let start = e.start else { preconditionFailure("not a bandit") }
        let keys = e.variants.map(\.key)
        let running = keys.map { !stopped.contains($0) }
        let (users, rewards) = try basis(e, allocation: a, facts: facts, now: now)
        var rule = "learned"
        var weights: [Double]
        if index == 0 || zip(users, running).contains(where: { $0.1 && $0.0 < a.burnInUsers }) {
            rule = index == 0 ? "first" : "burn_in"
            let file = e.normalizedWeights.enumerated().map { running[$0.offset] ? $0.element : 0 }
            let total = file.reduce(0, +)
            weights = total > 0 ? file.map { $0 / total } : e.normalizedWeights
        } else {
            weights = try BanditWeights.learned(users: users, rewards: rewards, running: running, minShare: a.minShare)
            if weights.reduce(0, +) <= 0 { weights = e.normalizedWeights }
        }
        return AllocationPeriod(experiment: e.id, index: index, from: Timestamp(a.periodStart(index, start: start)),
                                weights: zip(keys, weights).map { (variant: $0.0, weight: $0.1) },
                                basis: keys.indices.map { (variant: keys[$0], users: users[$0], rewards: rewards[$0]) },
                                rule: rule, computedAt: Timestamp(now))
    }

    /// Records every period of every running bandit due by `now` that has no record yet, and
    /// returns those written. The caller holds the lease (or is the only process).
    public static func run(experiments: [Experiment], store: any FactsReader & AllocationPeriodStore & SafeguardStopStore,
                           now: Date) throws -> [AllocationPeriod] {
        var written: [AllocationPeriod] = []
        let stops = try store.safeguardStopsInForce()
        for e in experiments where e.status == .running {
            guard let a = e.allocation, let start = e.start, now >= start else { continue }
            if let end = e.end, now >= end { continue }
            let current = a.periodIndex(at: now, start: start)
            let recorded = try store.allocationPeriods(experiment: e.id)
            if let last = recorded.last, last.index >= current { continue }
            let mine = stops.filter { $0.experiment == e.id }
            let stopped: Set<String> = mine.contains { $0.action == .stopExperiment } ? Set(e.variants.map(\.key)) : Set(mine.map(\.arm))
            // Missed boundaries: the weights in force through them were the last record's (period 0: the file's).
            var inForce = recorded.last.flatMap { $0.weights.map(\.variant) == e.variants.map(\.key) ? $0.weights : nil }
            var next = (recorded.last?.index ?? -1) + 1
            while next < current {
                var p = try compute(e, index: 0, stopped: stopped, facts: store, now: now)
                if next > 0 {
                    p = AllocationPeriod(experiment: e.id, index: next, from: Timestamp(a.periodStart(next, start: start)),
                                         weights: inForce ?? p.weights, basis: [], rule: "carried", computedAt: Timestamp(now))
                }
                written += try record(p, store)
                inForce = p.weights
                next += 1
            }
            let p = try compute(e, index: current, stopped: stopped, facts: store, now: now)
            written += try record(p, store)
        }
        return written
    }

    private static func record(_ p: AllocationPeriod, _ store: any AllocationPeriodStore) throws -> [AllocationPeriod] {
        try store.recordAllocationPeriod(p) ? [p] : []
    }
}
