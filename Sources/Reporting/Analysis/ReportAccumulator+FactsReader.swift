import Events
import ExperimentDefinitions
import Foundation

extension ReportAccumulator {
    /// Reads `experiment`'s facts from a store in one pass (one row per user).
    /// `options.since`/`until` bound the first exposure in the store's read itself.
    ///
    /// Facts hold times, so `add` cuts them at the "as of" time, but net revenue is a total to
    /// date: with `--until`, each user's revenue is summed again from the events up to that time.
    public static func read(store: any FactsReader, experiment: Experiment, options: ReportOptions) throws -> ReportAccumulator {
        var acc = ReportAccumulator(experiment: experiment, options: options)
        let since = options.since.map(Timestamp.init), until = options.until.map(Timestamp.init)
        let revenueAsOf = try options.until.map { _ in
            try store.netRevenue(experiment: experiment.id, asOf: Timestamp(options.asOf), since: since, until: until)
        }
        try store.forEachFact(experiment: experiment.id, since: since, until: until) { facts in
            if let revenueAsOf {
                var cut = facts
                cut.netRevenue = revenueAsOf[facts.userID] ?? 0
                acc.add(cut)
            } else {
                acc.add(facts)
            }
        }
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
        return try ReportAnalyzer.analyze(try ReportAccumulator.read(store: store, experiment: experiment, options: options))
    }
}
