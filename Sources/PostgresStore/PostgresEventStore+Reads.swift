import Events
import ExperimentDefinitions

extension PostgresEventStore {
    /// Calls `body` with each user's facts in `experiment`, in `user_id` byte order (as SQLite
    /// sorts), one row per user. `since` (inclusive) and `until` (exclusive) bound the first
    /// exposure. Reads one snapshot, through a cursor (`CursorReader`).
    public func forEachFact(experiment: String, since: Timestamp?, until: Timestamp?,
                            _ body: (UserFacts) throws -> Void) throws {
        try forEachFact(experiment: experiment, since: since, until: until, fields: .all, body)
    }

    /// `FactsReader.forEachFact(…fields:…)`: the same walk, with the columns of the parts not asked
    /// for read as NULL, so they are neither sent nor decoded.
    public func forEachFact(experiment: String, since: Timestamp?, until: Timestamp?, fields: FactFields,
                            _ body: (UserFacts) throws -> Void) throws {
        try readers.withConnection { c in
            try CursorReader.forEachBatch(on: c, """
                SELECT \(Self.factColumns(fields, experimentKnown: true)) FROM facts
                WHERE experiment = $1 AND first_exposure_ts >= $2 AND first_exposure_ts < $3 ORDER BY user_id
                """, [experiment, String(since?.microseconds ?? Int64.min), String(until?.microseconds ?? Int64.max)],
                context: "read facts") { rows in
                // Every row's experiment is the one asked for: it is not sent, and passing it on saves a string per row.
                for row in 0..<rows.count { try body(Self.facts(rows, row, experiment: experiment)) }
            }
        }
    }

    /// `FactsReader.forEachFactTimes`: the same walk as `forEachFact`, reading only the variant, the user
    /// id and the times.
    public func forEachFactTimes(experiment: String, until: Timestamp?, variants: [String], excluding: Set<UserID>,
                                 _ body: (FactTimes) throws -> Void) throws {
        let at = FactColumns.times.layout
        try readers.withConnection { c in
            try CursorReader.forEachBatch(on: c, """
                SELECT \(FactColumns.times.list) FROM facts WHERE experiment = $1 AND first_exposure_ts < $2 ORDER BY user_id
                """, [experiment, String(until?.microseconds ?? Int64.max)], context: "read facts") { rows in
                for row in 0..<rows.count {
                    guard let arm = variants.firstIndex(of: rows.text(row, at.variant)) else { continue }
                    if !excluding.isEmpty && excluding.contains(UserID(rows.text(row, at.userID))) { continue }
                    try body(FactTimes(arm: arm, firstExposure: rows.int64(row, at.firstExposure), trialStart: rows.optionalInt64(row, at.trialStart),
                                       firstPaid: rows.optionalInt64(row, at.firstPaid), firstConverted: rows.optionalInt64(row, at.firstConverted),
                                       firstCancel: rows.optionalInt64(row, at.firstCancel), refundedAt: rows.optionalInt64(row, at.refunded),
                                       allocationPeriod: rows.optionalInt64(row, at.allocationPeriod),
                                       billingIssue: rows.optionalInt64(row, at.billingIssue),
                                       grantedTrialDays: rows.optionalInt64(row, at.trialDays).map { Int($0) },
                                       undoneCancels: EndSpan.decode(rows.optionalText(row, at.undoneCancels))))
                }
            }
        }
    }

    /// One user's facts in every experiment the user was exposed to, by experiment.
    public func facts(userID: UserID) throws -> [UserFacts] {
        try readers.withConnection { c in
            let rows = try c.executePrepared("facts_of_user", "SELECT \(Self.factColumns) FROM facts WHERE user_id = $1 ORDER BY experiment",
                                             [userID.text], context: "read facts")
            return (0..<rows.count).map { Self.facts(rows, $0) }
        }
    }

    /// Each user's net revenue in `experiment` counting only events up to `asOf` (inclusive),
    /// for users first exposed in `[since, until)`; users without revenue by then are left out.
    /// Summed in Swift in (ts, type, event_id) order, as the SQLite store does, so both give
    /// the same doubles.
    public func netRevenue(experiment: String, asOf: Timestamp, since: Timestamp?, until: Timestamp?) throws -> [UserID: Double] {
        let types = EventType.allCases.filter(\.carriesRevenue).map { String($0.rawValue) }.joined(separator: ", ")
        return try readers.withConnection { c in
            let rows = try c.execute(PersonRevenueQuery.sql(types: types, parameter: "$"),
                                     [experiment, String(since?.microseconds ?? Int64.min), String(until?.microseconds ?? Int64.max),
                                      String(asOf.microseconds)], context: "read net revenue")
            var revenue: [UserID: Double] = [:]
            for row in 0..<rows.count {
                guard let type = EventType(rawValue: Int(rows.int64(row, 1))) else { continue }
                revenue[UserID(rows.text(row, 0)), default: 0] += type.revenueContribution(rows.double(row, 2))
            }
            return revenue
        }
    }

    /// Experiments with at least one exposure, by id.
    public func experiments() throws -> [ExperimentSummary] {
        try readers.withConnection { c in
            let rows = try c.execute("""
                SELECT experiment, COUNT(*), MIN(first_exposure_ts), MAX(first_exposure_ts)
                FROM facts GROUP BY experiment ORDER BY experiment
                """, context: "list experiments")
            return (0..<rows.count).map {
                ExperimentSummary(experiment: rows.text($0, 0), users: Int(rows.int64($0, 1)),
                                  firstExposure: Timestamp(microseconds: rows.int64($0, 2)),
                                  lastExposure: Timestamp(microseconds: rows.int64($0, 3)))
            }
        }
    }

    /// Row counts: events, facts rows, experiments with facts.
    public func counts() throws -> (events: Int, facts: Int, experiments: Int) {
        try readers.withConnection { c in
            let rows = try c.execute("""
                SELECT (SELECT COUNT(*) FROM events), (SELECT COUNT(*) FROM facts), (SELECT COUNT(DISTINCT experiment) FROM facts)
                """, context: "count rows")
            return (events: Int(rows.int64(0, 0)), facts: Int(rows.int64(0, 1)), experiments: Int(rows.int64(0, 2)))
        }
    }

    /// One user's stored events, in (ts, type, event_id) order.
    public func events(userID: UserID) throws -> [Event] {
        try readers.withConnection { c in
            let rows = try c.execute("SELECT \(EventColumns.names) FROM events WHERE user_id = $1 ORDER BY ts, type, event_id",
                                     [userID.text], context: "read events")
            let positions = rows.eventColumnPositions()
            return (0..<rows.count).map { rows.event($0, at: positions) }
        }
    }

    /// Every stored event, by user and event id, from one snapshot.
    public func forEachEvent(_ body: (Event) throws -> Void) throws {
        try readers.withConnection { c in
            try CursorReader.forEachBatch(on: c, "SELECT \(EventColumns.names) FROM events ORDER BY user_id, event_id",
                                          context: "read events") { rows in
                let positions = rows.eventColumnPositions()
                for row in 0..<rows.count { try body(rows.event(row, at: positions)) }
            }
        }
    }

    static let factColumns = factColumns(.all)

    /// The facts columns `facts(_:_:)` decodes, reading the columns of `fields` and a typed NULL in place of
    /// the others (the experiment too when the caller knows it).
    static func factColumns(_ fields: FactFields, experimentKnown: Bool = false) -> String {
        FactColumns.select(fields, experimentKnown: experimentKnown) { "NULL::\($0.postgresType)" }
    }

    /// One facts row, its columns found by name (`FactColumns.layout`); `experiment`, when the caller
    /// knows it, stands in for that column.
    static func facts(_ r: ResultSet, _ i: Int, experiment: String? = nil) -> UserFacts {
        let at = FactColumns.layout
        func ts(_ column: Int) -> Timestamp? { r.optionalInt64(i, column).map(Timestamp.init(microseconds:)) }
        return UserFacts(experiment: experiment ?? r.text(i, at.experiment), userID: UserID(r.text(i, at.userID)), variant: r.text(i, at.variant),
                         firstExposure: Timestamp(microseconds: r.int64(i, at.firstExposure)), trialStart: ts(at.trialStart),
                         firstPaid: ts(at.firstPaid), firstConverted: ts(at.firstConverted), firstCancel: ts(at.firstCancel),
                         refundedAt: ts(at.refunded), netRevenue: r.double(i, at.netRevenue),
                         revenueEntries: r.bytes(i, at.revenueEntries).map { bytes in bytes.withUnsafeBytes(RevenueEntry.decode) } ?? [],
                         crossedOver: r.bool(i, at.crossedOver),
                         copySource: r.optionalText(i, at.copySource).flatMap { .init(rawValue: $0) },
                         copyFallbackReason: r.optionalText(i, at.copyFallbackReason),
                         placement: r.optionalText(i, at.placement), attributes: r.attributes(i, at.attributes),
                         grantedTrialDays: r.optionalInt64(i, at.trialDays).map { Int($0) }, allocationPeriod: ts(at.allocationPeriod),
                         expiredAt: ts(at.expired), expiryKind: r.optionalText(i, at.expiryKind).flatMap(SubscriptionEndKind.init(rawValue:)),
                         billingIssueAt: ts(at.billingIssue), firstUncancel: ts(at.firstUncancel), strayUncancel: ts(at.strayUncancel),
                         undoneCancels: EndSpan.decode(r.optionalText(i, at.undoneCancels)), laterEnds: EndSpan.decode(r.optionalText(i, at.laterEnds)))
    }
}
