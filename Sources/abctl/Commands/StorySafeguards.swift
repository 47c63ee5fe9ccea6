import Assignment
import Events
import ExperimentDefinitions
import Foundation
import Safeguards
import Simulation

/// Safeguards evaluated while a simulated story unfolds (`abctl demo`): every `check_minutes` of
/// simulated time, one evaluation of the store as it stood then, as a server's schedule would run
/// it; the stops it writes are durable records with that time, and the simulator honours them for
/// later arrivals.
enum StorySafeguards {
    /// Nil when no running experiment has `safeguards`.
    static func checkpoints(catalog: ExperimentCatalog, store: any EventStore) -> Simulator.Checkpoints? {
        let guarded = catalog.experiments.filter { $0.status == .running && $0.safeguards != nil }
        guard let minutes = guarded.compactMap({ $0.safeguards?.checkMinutes }).min(), minutes > 0 else { return nil }
        return Simulator.Checkpoints(every: minutes * 60) { now in
            // Stops made by `now` (a rerun on the same store finds its own later stops and leaves them for later).
            func inForce() throws -> [SafeguardStop] {
                try store.safeguardStopsInForce().filter { $0.stoppedAt.date <= now }
            }
            _ = try store.withSafeguardLease {
                try SafeguardEvaluator.run(experiments: guarded, store: store, now: now,
                                           stopID: { experiment, arm, at in "story:\(experiment):\(arm):\(RFC3339.format(at))" })
            }
            let stops = try inForce()
            return (armStops(stops, experiments: guarded), !allStopped(guarded, stops))
        }
    }

    /// Nothing left to stop: every treatment arm of every guarded experiment is stopped.
    static func allStopped(_ experiments: [Experiment], _ stops: [SafeguardStop]) -> Bool {
        experiments.allSatisfy { e in
            stops.contains { $0.experiment == e.id && $0.action == .stopExperiment }
                || e.variants.dropFirst().allSatisfy { v in stops.contains { $0.experiment == e.id && $0.arm == v.key } }
        }
    }

    /// The assigner's view of stops in force: `stop_experiment` stops every arm; the rollout holds at the first stop.
    static func armStops(_ stops: [SafeguardStop], experiments: [Experiment]) -> [String: ArmStops] {
        var result: [String: ArmStops] = [:]
        for e in experiments {
            let mine = stops.filter { $0.experiment == e.id }
            guard !mine.isEmpty else { continue }
            let all = mine.contains { $0.action == .stopExperiment }
            result[e.id] = ArmStops(stoppedArms: e.variants.map { v in all || mine.contains { $0.arm == v.key } },
                                    holdStageAt: mine.map(\.stoppedAt.date).min())
        }
        return result
    }
}
