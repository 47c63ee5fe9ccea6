import EventStore
import ExperimentDefinitions
import Foundation

extension ReportRow {
    /// The store's facts row, as the report reads it.
    public init(_ f: UserFacts) {
        self.init(userID: f.userID, variant: f.variant, firstExposure: f.firstExposure.microseconds,
                  trialStart: f.trialStart?.microseconds, firstPaid: f.firstPaid?.microseconds,
                  firstConverted: f.firstConverted?.microseconds, firstCancel: f.firstCancel?.microseconds,
                  refunded: f.refundedAt?.microseconds, netRevenue: f.netRevenue, revenueEntries: f.revenueEntries,
                  crossedOver: f.crossedOver, copySource: f.copySource?.rawValue, fallbackReason: f.copyFallbackReason)
    }
}

extension ReportAccumulator {
    /// Reads `experiment`'s facts from the store in one pass (one row per user).
    /// `options.since`/`until` bound the first exposure in the query itself.
    ///
    /// Facts hold times, so `add` cuts them at the "as of" time, but net revenue is a total to
    /// date: with `--until`, each user's revenue is summed again from the events up to that time.
    public static func read(store: EventStore, experiment: Experiment, options: ReportOptions) throws -> ReportAccumulator {
        var acc = ReportAccumulator(experiment: experiment, options: options)
        let since = options.since.map(Timestamp.init), until = options.until.map(Timestamp.init)
        let revenueAsOf = try options.until.map { _ in
            try store.netRevenue(experiment: experiment.id, asOf: Timestamp(options.asOf), since: since, until: until)
        }
        try store.forEachFact(experiment: experiment.id, since: since, until: until) {
            var row = ReportRow($0)
            if let revenueAsOf { row.netRevenue = revenueAsOf[row.userID] ?? 0 }
            acc.add(row)
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
