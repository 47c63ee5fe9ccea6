import Events
import ExperimentDefinitions
import Foundation

extension ReportAccumulator {
    /// Reads `experiment`'s facts from a store in one pass (one row per user): users first exposed
    /// from `options.since` to the as-of moment, bounded in the store's read itself.
    ///
    /// One as-of moment (SPEC §5), however it was given (`--until`, `ABCTL_NOW`, a simulation's end,
    /// now): facts hold times and revenue entries, so `add` cuts every figure there, revenue included.
    public static func read(store: any FactsReader, experiment: Experiment, options: ReportOptions) throws -> ReportAccumulator {
        var acc = ReportAccumulator(experiment: experiment, options: options)
        try store.forEachFact(experiment: experiment.id, since: options.since.map(Timestamp.init), until: Timestamp(options.asOf)) { acc.add($0) }
        return acc
    }
}

/// One call from a store to a finished report.
public enum ReportBuilder {
    /// With a store that keeps safeguard stops, the experiment's stops join the options.
    public static func report(store: any FactsReader, experiment: Experiment, options: ReportOptions) throws -> Report {
        var options = options
        if let stops = store as? any SafeguardStopStore {
            options.safeguardStops = try stops.safeguardStops(experiment: experiment.id)
        }
        if experiment.isBandit, let periods = store as? any AllocationPeriodStore {
            options.allocationPeriods = try periods.allocationPeriods(experiment: experiment.id)
        }
        if let people = store as? any PeopleDirectory {
            options.identityConflicts = try people.identityConflicts()
            options.personsOfSeveralIds = try people.personsOfSeveralIds()
            let from = [options.since, experiment.start].compactMap { $0 }.max()
            let to = [options.asOf, experiment.end].compactMap { $0 }.min() ?? options.asOf
            (options.storePayments, options.unmatchedStorePayments) = try people.storePayments(since: from.map(Timestamp.init), until: Timestamp(to))
        }
        return try ReportAnalyzer.analyze(try ReportAccumulator.read(store: store, experiment: experiment, options: options))
    }
}
