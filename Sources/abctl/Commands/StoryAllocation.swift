import Allocation
import Assignment
import Events
import ExperimentDefinitions
import Foundation
import Simulation

/// Bandit periods while a simulated story unfolds (`abctl simulate`, `abctl demo`): at each period
/// boundary of simulated time, the store's periods due then are recorded (as a server's lease
/// holder would, from the mature rewards written so far), and later arrivals are drawn with them.
enum StoryAllocation {
    /// Nil when no running experiment is a bandit.
    static func allocation(catalog: ExperimentCatalog, store: any EventStore, simulator: Simulator) -> Simulator.Allocation? {
        let bandits = catalog.experiments.filter { $0.status == .running && $0.isBandit }
        guard !bandits.isEmpty else { return nil }
        let span = simulator.arrivalsEnd.timeIntervalSince(simulator.start)
        var offsets: Set<TimeInterval> = []
        for e in bandits {
            guard let a = e.allocation, let start = e.start else { continue }
            if start < simulator.start { offsets.insert(0) }
            var k = max(0, a.periodIndex(at: simulator.start, start: start))
            while true {
                let offset = a.periodStart(k, start: start).timeIntervalSince(simulator.start)
                if offset >= span { break }
                if offset >= 0 { offsets.insert(offset) }
                k += 1
            }
        }
        return Simulator.Allocation(boundaries: offsets.sorted()) { now in
            _ = try store.withSafeguardLease { try AllocationUpdater.run(experiments: bandits, store: store, now: now) }
            var out: [String: [BanditPeriod]] = [:]
            for p in try store.allocationPeriods(experiment: nil) where p.from.date <= now {
                out[p.experiment, default: []].append(BanditPeriod(from: p.from.date, weights: p.weights.map(\.weight)))
            }
            return out
        }
    }
}
