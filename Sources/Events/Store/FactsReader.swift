import ExperimentDefinitions

/// Reads an experiment's per-user facts: what reports are computed from.
///
/// Facts are current at the time of the read: every event acknowledged before it is in them.
public protocol FactsReader: Sendable {
    /// Calls `body` with each user's facts in `experiment`, one per user, in `user_id` order
    /// (byte order of the UTF-8). `since` (inclusive) and `until` (exclusive) bound the first
    /// exposure. One consistent snapshot; memory stays flat.
    func forEachFact(experiment: String, since: Timestamp?, until: Timestamp?, _ body: (UserFacts) throws -> Void) throws

    /// `forEachFact`, reading only `fields` of what a row may leave unread: a part not asked for
    /// comes empty (`attributes` `.empty` and `placement` nil; `revenueEntries` `[]`). A store may
    /// read more than asked.
    func forEachFact(experiment: String, since: Timestamp?, until: Timestamp?, fields: FactFields,
                     _ body: (UserFacts) throws -> Void) throws

    /// `forEachFact(…fields:…)`'s rows a batch at a time (`FactBatch`, read in the same order), for a
    /// walk that counts many rows and needs no attributes: `fields` must not ask for them. A batch is
    /// lent to `body` and reused for the next.
    func forEachFactBatch(experiment: String, since: Timestamp?, until: Timestamp?, fields: FactFields,
                          _ body: (FactBatch) throws -> Void) throws

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

    /// `forEachFact`'s rows of users first exposed before `until` (exclusive), in the same order, cut
    /// down to their times (`FactTimes`): what a safeguard evaluation reads. Rows whose variant is not
    /// one of `variants` and users in `excluding` (forced users) are left out; `FactTimes.arm` is the
    /// index of the row's variant in `variants`. A store may read only these columns.
    func forEachFactTimes(experiment: String, until: Timestamp?, variants: [String], excluding: Set<UserID>,
                          _ body: (FactTimes) throws -> Void) throws
}

/// The times of one user's facts (`UserFacts`, in microseconds since 1970), with the user's arm.
public struct FactTimes: Sendable, Equatable {
    /// The index of the user's variant among the variants asked for.
    public var arm: Int
    public var firstExposure: Int64
    public var trialStart: Int64?
    public var firstPaid: Int64?
    public var firstConverted: Int64?
    public var firstCancel: Int64?
    public var refundedAt: Int64?
    /// A bandit's user: the `allocation_period` (the period's start) the first exposure echoed, nil when it did not.
    public var allocationPeriod: Int64?
    /// The first `billing_issue`, and the trial the store granted (when its first charge came due).
    public var billingIssue: Int64?
    public var grantedTrialDays: Int?
    /// The cancels before `firstCancel` that were undone, with when (`UserFacts.undoneCancels`).
    public var undoneCancels: [EndSpan]

    public init(arm: Int, firstExposure: Int64, trialStart: Int64? = nil, firstPaid: Int64? = nil, firstConverted: Int64? = nil,
                firstCancel: Int64? = nil, refundedAt: Int64? = nil, allocationPeriod: Int64? = nil,
                billingIssue: Int64? = nil, grantedTrialDays: Int? = nil, undoneCancels: [EndSpan] = []) {
        self.arm = arm
        self.firstExposure = firstExposure
        self.trialStart = trialStart
        self.firstPaid = firstPaid
        self.firstConverted = firstConverted
        self.firstCancel = firstCancel
        self.refundedAt = refundedAt
        self.allocationPeriod = allocationPeriod
        self.billingIssue = billingIssue
        self.grantedTrialDays = grantedTrialDays
        self.undoneCancels = undoneCancels
    }

    public init(_ f: UserFacts, arm: Int) {
        self.init(arm: arm, firstExposure: f.firstExposure.microseconds, trialStart: f.trialStart?.microseconds,
                  firstPaid: f.firstPaid?.microseconds, firstConverted: f.firstConverted?.microseconds,
                  firstCancel: f.firstCancel?.microseconds, refundedAt: f.refundedAt?.microseconds,
                  allocationPeriod: f.allocationPeriod?.microseconds, billingIssue: f.billingIssueAt?.microseconds,
                  grantedTrialDays: f.grantedTrialDays, undoneCancels: f.undoneCancels)
    }
}

extension FactTimes: CancelHistory {
    public var standingCancel: Int64? { firstCancel }
}

extension FactsReader {
    /// `forEachFact(…fields:…)` from whole facts rows (a store that reads nothing less).
    public func forEachFact(experiment: String, since: Timestamp?, until: Timestamp?, fields: FactFields,
                            _ body: (UserFacts) throws -> Void) throws {
        try forEachFact(experiment: experiment, since: since, until: until, body)
    }

    /// `forEachFactBatch` from whole facts rows (a store that reads rows one by one).
    public func forEachFactBatch(experiment: String, since: Timestamp?, until: Timestamp?, fields: FactFields,
                                 _ body: (FactBatch) throws -> Void) throws {
        precondition(!fields.contains(.attributes), "a FactBatch carries no attributes")
        var batch = FactBatch()
        try forEachFact(experiment: experiment, since: since, until: until, fields: fields) { row in
            batch.append(row)
            if batch.isFull {
                try body(batch)
                batch.removeAll()
            }
        }
        if batch.count > 0 { try body(batch) }
    }

    /// `forEachFactTimes` from whole facts rows (a store that reads nothing less).
    public func forEachFactTimes(experiment: String, until: Timestamp?, variants: [String], excluding: Set<UserID>,
                                 _ body: (FactTimes) throws -> Void) throws {
        try forEachFact(experiment: experiment, since: nil, until: until) { f in
            guard let arm = variants.firstIndex(of: f.variant) else { return }
            if !excluding.isEmpty && excluding.contains(f.userID) { return }
            try body(FactTimes(f, arm: arm))
        }
    }

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
