import Allocation
import Events
import ExperimentDefinitions
import Foundation
import Synchronization

/// Bandits ride on the safeguard service: every node reads the allocation periods
/// with the stops (every `pollSeconds`, so within 10 s), and the lease holder records each period
/// at its boundary, so one node computes it and a failover neither repeats nor skips one.
extension SafeguardService {
    /// Swaps the periods in the store into the snapshot when they differ from its own.
    func refreshPeriods() {
        guard snapshots.snapshot.catalog.experiments.contains(where: \.isBandit) else { return }
        let periods: [AllocationPeriod]
        do {
            periods = try store.allocationPeriods(experiment: nil)
        } catch {
            pollFailures.add(1, ordering: .relaxed)
            log.write(level: .warning, "cannot read allocation periods; keeping the ones in force", ["error": .string(String(describing: error))])
            return
        }
        snapshots.update { current in current.periods == periods ? nil : current.withPeriods(periods) }
    }

    /// On the lease holder: records every bandit period that is due and not yet recorded; true
    /// when it wrote one. Reads the store only when the snapshot lacks a due period.
    func updateAllocations() throws -> Bool {
        let snapshot = snapshots.snapshot
        let now = options.clock ?? Date()
        let due = snapshot.catalog.experiments.filter { e in
            guard e.status == .running, let a = e.allocation, let start = e.start, now >= start else { return false }
            if let end = e.end, now >= end { return false }
            let current = a.periodIndex(at: now, start: start)
            return !snapshot.periods.contains { $0.experiment == e.id && $0.index >= current }
        }
        guard !due.isEmpty else { return false }
        let written = try AllocationUpdater.run(experiments: due, store: store, now: now)
        for p in written {
            log.write(level: .info, "allocation period recorded", ["experiment": .string(p.experiment), "period": .number(Double(p.index)),
                                                                            "rule": .string(p.rule), "weights": .object(p.weights.map { ($0.variant, .number($0.weight)) })])
        }
        // A period another process recorded is read on the next poll; refresh now either way.
        return true
    }
}
