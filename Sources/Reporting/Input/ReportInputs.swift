import Events
import ExperimentDefinitions
import Foundation

/// What a report reads from its store besides the facts, read once per report from a
/// `ReportSource`: the as-of moment, the experiment's safeguard stops, a bandit's allocation
/// periods, and the people figures.
public struct ReportInputs: Sendable {
    /// The one moment every figure is cut at (`asOf(until:clock:observedUntil:)`).
    public var asOf: Date
    /// The experiment's safeguard stops as the store holds them (in force or lifted): the report's
    /// `safeguards`.
    public var safeguardStops: [SafeguardStop]
    /// A bandit's allocation periods as the store recorded them: the weights in force
    /// per period, for the period-stratified sample ratio check and the report's `allocation`.
    public var allocationPeriods: [AllocationPeriod]
    /// `identified` events the store kept as conflicts, store-wide.
    public var identityConflicts: Int
    /// App Store and Google Play payments in the experiment's dates (to the as-of moment), and those
    /// under a store token no exposure named (the `unmatched_store_payments` warning).
    public var storePayments: Int
    public var unmatchedStorePayments: Int
    /// The persons of more than one id (the `identity_imbalance` warning).
    public var personsOfSeveralIds: Set<UserID>
    /// An `until` after now (no fixed clock): the moment asked, and the events the store holds at or
    /// after the moment read instead (the report's health says so, `until_after_now`).
    public var untilAfterNow: (asked: Date, eventsLeftOut: Int)?
    /// The people exposed, before the as-of moment, to another experiment of this one's namespace
    /// (`ReportOptions.namespaceNeighbours`), with their first such exposure (microseconds): one
    /// also exposed here counts in `namespace_conflicts`, and here only if it saw this one first.
    public var namespaceNeighbourExposures: [UserID: Int64] = [:]
    /// Those other experiments, by id.
    public var namespaceNeighbours: [String] = []

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
        self.init(asOf: Self.asOf(until: options.until, clock: options.clock, now: Date()) { nil })
    }

    /// One as-of moment: with a fixed clock (`ABCTL_NOW`), `until` capped at it, else the
    /// clock. Without one: `until` when it is not after `now`; an `until` after `now` reads as of the
    /// later of `now` and where the store's data ends (a simulation's recorded end of observation),
    /// never past `until`; no `until`, where the data ends, else `now`. `observedUntil` is asked
    /// only when the moment depends on it.
    public static func asOf(until: Date?, clock: Date?, now: Date, observedUntil: () throws -> Date?) rethrows -> Date {
        if let clock { return until.map { min($0, clock) } ?? clock }
        guard let until else { return try observedUntil() ?? now }
        guard until > now else { return until }
        return min(until, max(now, try observedUntil() ?? now))
    }

    /// Everything `experiment`'s report reads from `source` besides the facts, as of the moment
    /// `options` and the source name. Allocation periods are read for a bandit only.
    public static func read(from source: any ReportSource, experiment: Experiment, options: ReportOptions) throws -> ReportInputs {
        let now = Date()
        let asOf = try asOf(until: options.until, clock: options.clock, now: now) { try source.observedUntil()?.date }
        let from = [options.since, experiment.start].compactMap { $0 }.max()
        let to = [asOf, experiment.end].compactMap { $0 }.min() ?? asOf
        let payments = try source.storePayments(since: from.map(Timestamp.init), until: Timestamp(to))
        var inputs = ReportInputs(asOf: asOf, safeguardStops: try source.safeguardStops(experiment: experiment.id),
                                  allocationPeriods: experiment.isBandit ? try source.allocationPeriods(experiment: experiment.id) : [],
                                  identityConflicts: try source.identityConflicts(), storePayments: payments.payments,
                                  unmatchedStorePayments: payments.unmatched, personsOfSeveralIds: try source.personsOfSeveralIds())
        if let neighbours = options.namespaceNeighbours[experiment.id] {
            inputs.namespaceNeighbours = neighbours
            inputs.namespaceNeighbourExposures = try firstExposures(source, of: neighbours, before: Timestamp(asOf))
        }
        if options.clock == nil, let until = options.until, until > now {
            inputs.untilAfterNow = (until, try source.eventCount(from: Timestamp(asOf)))
        }
        return inputs
    }

    /// Each person's first exposure among `experiments` before `moment`.
    static func firstExposures(_ source: any ReportSource, of experiments: [String], before moment: Timestamp) throws -> [UserID: Int64] {
        var first: [UserID: Int64] = [:]
        for id in experiments {
            try source.forEachFact(experiment: id, since: nil, until: moment, fields: []) { f in
                let at = f.firstExposure.microseconds
                if let seen = first[f.userID], seen <= at { return }
                first[f.userID] = at
            }
        }
        return first
    }
}
