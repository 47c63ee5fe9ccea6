import Events
import ExperimentDefinitions
import Foundation

/// What a report reads from its store besides the facts, read once per report from a
/// `ReportSource`: the as-of moment, the experiment's safeguard stops, a bandit's allocation
/// periods, and the people figures.
public struct ReportInputs: Sendable {
    /// The one moment every figure is cut at (SPEC §5 "As of one moment"; `asOf(until:clock:observedUntil:)`).
    public var asOf: Date
    /// The experiment's safeguard stops as the store holds them (in force or lifted): the report's
    /// `safeguards` (SPEC §8).
    public var safeguardStops: [SafeguardStop]
    /// A bandit's allocation periods as the store recorded them (SPEC §5): the weights in force
    /// per period, for the period-stratified sample ratio check and the report's `allocation`.
    public var allocationPeriods: [AllocationPeriod]
    /// `identified` events the store kept as conflicts (SPEC §4), store-wide.
    public var identityConflicts: Int
    /// App Store and Google Play payments in the experiment's dates (to the as-of moment), and those
    /// under a store token no exposure named (SPEC §4 `unmatched_store_payments`).
    public var storePayments: Int
    public var unmatchedStorePayments: Int
    /// The persons of more than one id (SPEC §4 `identity_imbalance`).
    public var personsOfSeveralIds: Set<UserID>

    public init(asOf: Date, safeguardStops: [SafeguardStop] = [], allocationPeriods: [AllocationPeriod] = [], identityConflicts: Int = 0,
                storePayments: Int = 0, unmatchedStorePayments: Int = 0, personsOfSeveralIds: Set<UserID> = []) {
        self.asOf = asOf
        self.safeguardStops = safeguardStops
        self.allocationPeriods = allocationPeriods
        self.identityConflicts = identityConflicts
        self.storePayments = storePayments
        self.unmatchedStorePayments = unmatchedStorePayments
        self.personsOfSeveralIds = personsOfSeveralIds
    }

    /// Without a store (rows fed by hand): the as-of moment of `options` alone, and nothing else read.
    public init(options: ReportOptions) {
        self.init(asOf: Self.asOf(until: options.until, clock: options.clock) { nil })
    }

    /// SPEC §5 "As of one moment": `until` when given, capped at the clock; else the fixed clock
    /// (`ABCTL_NOW`); else where the store's data ends (a simulation's recorded end of observation);
    /// else now. `observedUntil` is asked only when neither `until` nor a fixed clock names the moment.
    public static func asOf(until: Date?, clock: Date?, observedUntil: () throws -> Date?) rethrows -> Date {
        let now = try clock ?? (until == nil ? observedUntil() : nil) ?? Date()
        return until.map { min($0, now) } ?? now
    }

    /// Everything `experiment`'s report reads from `source` besides the facts, as of the moment
    /// `options` and the source name. Allocation periods are read for a bandit only.
    public static func read(from source: any ReportSource, experiment: Experiment, options: ReportOptions) throws -> ReportInputs {
        let asOf = try asOf(until: options.until, clock: options.clock) { try source.observedUntil()?.date }
        let from = [options.since, experiment.start].compactMap { $0 }.max()
        let to = [asOf, experiment.end].compactMap { $0 }.min() ?? asOf
        let payments = try source.storePayments(since: from.map(Timestamp.init), until: Timestamp(to))
        return ReportInputs(asOf: asOf, safeguardStops: try source.safeguardStops(experiment: experiment.id),
                            allocationPeriods: experiment.isBandit ? try source.allocationPeriods(experiment: experiment.id) : [],
                            identityConflicts: try source.identityConflicts(), storePayments: payments.payments,
                            unmatchedStorePayments: payments.unmatched, personsOfSeveralIds: try source.personsOfSeveralIds())
    }
}
