import ExperimentDefinitions

/// Reads an experiment's per-user facts: what reports are computed from.
///
/// Facts are current at the time of the read: every event acknowledged before it is in them.
public protocol FactsReader: Sendable {
    /// Calls `body` with each user's facts in `experiment`, one per user, in `user_id` order
    /// (byte order of the UTF-8). `since` (inclusive) and `until` (exclusive) bound the first
    /// exposure. One consistent snapshot; memory stays flat.
    func forEachFact(experiment: String, since: Timestamp?, until: Timestamp?, _ body: (UserFacts) throws -> Void) throws

    /// Each user's net revenue in `experiment` counting only events up to `asOf` (inclusive),
    /// for users first exposed in `[since, until)`; users without revenue by then are left out.
    /// Keyed by the ids' bytes, as the stores tell users apart.
    ///
    /// Facts keep the total to date; a report "as of" an earlier time needs this cut. Sum the
    /// contributions in `FactsBuilder`'s order, (ts, type, event_id), so that with nothing cut
    /// the figure equals the stored total to the last bit.
    func netRevenue(experiment: String, asOf: Timestamp, since: Timestamp?, until: Timestamp?) throws -> [UserID: Double]

    /// Experiments with at least one exposure, by id.
    func experiments() throws -> [ExperimentSummary]
}

extension FactsReader {
    /// Every user's facts in `experiment`.
    public func forEachFact(experiment: String, _ body: (UserFacts) throws -> Void) throws {
        try forEachFact(experiment: experiment, since: nil, until: nil, body)
    }

    /// The facts of `experiment` as an array (see `forEachFact`).
    public func facts(experiment: String, since: Timestamp? = nil, until: Timestamp? = nil) throws -> [UserFacts] {
        var rows: [UserFacts] = []
        try forEachFact(experiment: experiment, since: since, until: until) { rows.append($0) }
        return rows
    }
}

/// One experiment's footprint in a store.
public struct ExperimentSummary: Sendable, Equatable {
    public var experiment: String
    /// Exposed users (one facts row each).
    public var users: Int
    public var firstExposure: Timestamp
    public var lastExposure: Timestamp

    public init(experiment: String, users: Int, firstExposure: Timestamp, lastExposure: Timestamp) {
        self.experiment = experiment
        self.users = users
        self.firstExposure = firstExposure
        self.lastExposure = lastExposure
    }
}
