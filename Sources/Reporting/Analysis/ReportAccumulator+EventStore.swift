import EventStore
import ExperimentDefinitions
import Foundation

extension ReportRow {
    /// The store's facts row, as the report reads it.
    public init(_ f: UserFacts) {
        self.init(userID: f.userID, variant: f.variant, firstExposure: f.firstExposure.microseconds,
                  trialStart: f.trialStart?.microseconds, firstPaid: f.firstPaid?.microseconds,
                  firstConverted: f.firstConverted?.microseconds, firstCancel: f.firstCancel?.microseconds,
                  netRevenue: f.netRevenue, copySource: f.copySource?.rawValue, fallbackReason: f.copyFallbackReason)
    }
}

extension ReportAccumulator {
    /// Reads `experiment`'s facts from the store in one pass (one row per user, never the events).
    /// `options.since`/`until` bound the first exposure in the query itself.
    public static func read(store: EventStore, experiment: Experiment, options: ReportOptions) throws -> ReportAccumulator {
        var acc = ReportAccumulator(experiment: experiment, options: options)
        try store.forEachFact(experiment: experiment.id, since: options.since.map(Timestamp.init), until: options.until.map(Timestamp.init)) {
            acc.add(ReportRow($0))
        }
        return acc
    }
}

/// One call from a store to a finished report.
public enum ReportBuilder {
    public static func report(store: EventStore, experiment: Experiment, options: ReportOptions) throws -> Report {
        try ReportAnalyzer.analyze(try ReportAccumulator.read(store: store, experiment: experiment, options: options))
    }
}
