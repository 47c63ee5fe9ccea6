import Events
import ExperimentDefinitions
/// Row counts, for `abctl` status lines and `/metrics`.
public struct StoreCounts: Sendable, Equatable {
    public var events: Int
    public var facts: Int
    public var experiments: Int

    public init(events: Int, facts: Int, experiments: Int) {
        self.events = events
        self.facts = facts
        self.experiments = experiments
    }
}

extension SQLiteEventStore {
    /// Calls `body` with each user's facts in `experiment`, in `user_id` order, one row per
    /// user, walking the facts primary key (experiment, user_id). `since` (inclusive) and
    /// `until` (exclusive) bound the first exposure; they filter that walk (no second index, to
    /// keep ingest cheap). Reads one consistent snapshot; memory stays flat.
    public func forEachFact(experiment: String, since: Timestamp?, until: Timestamp?,
                            _ body: (UserFacts) throws -> Void) throws {
        try forEachFact(experiment: experiment, since: since, until: until, fields: .all, body)
    }

    /// `FactsReader.forEachFact(…fields:…)`: the same walk, with the columns of the parts not asked
    /// for read as NULL, so SQLite neither copies nor the row decodes them.
    public func forEachFact(experiment: String, since: Timestamp?, until: Timestamp?, fields: FactFields,
                            _ body: (UserFacts) throws -> Void) throws {
        try walkFacts(experiment: experiment, since: since, until: until, fields: fields) { s in
            // Every row's experiment is the one bound: it is not read. One row is read into again and
            // again: a fresh `UserFacts` per row was copied out and destroyed whole.
            var row = Self.emptyRow(experiment: experiment)
            while try s.step() {
                Self.read(s, into: &row)
                try body(row)
            }
        }
    }

    /// `FactsReader.forEachFactBatch`: the same walk, each row's columns read into a batch's columns.
    public func forEachFactBatch(experiment: String, since: Timestamp?, until: Timestamp?, fields: FactFields,
                                 _ body: (FactBatch) throws -> Void) throws {
        precondition(!fields.contains(.attributes), "a FactBatch carries no attributes")
        try walkFacts(experiment: experiment, since: since, until: until, fields: fields) { s in
            var batch = FactBatch()
            while try s.step() {
                Self.read(s, into: &batch)
                if batch.isFull {
                    try body(batch)
                    batch.removeAll()
                }
            }
            if batch.count > 0 { try body(batch) }
        }
    }

    /// The SQL of a walk of one experiment's facts rows (`?1`), in `user_id` order; `bounded`, of those
    /// first exposed in [`?2`, `?3`). Public for the benchmark that measures reading its columns.
    public static func factsWalk(_ fields: FactFields, bounded: Bool) -> String {
        let select = factColumns(fields, experimentKnown: true)
        return bounded
            ? "\(select) WHERE experiment = ?1 AND first_exposure_ts >= ?2 AND first_exposure_ts < ?3 ORDER BY user_id"
            : "\(select) WHERE experiment = ?1 ORDER BY user_id"
    }

    /// The statement of a walk of `experiment`'s facts rows, in `user_id` order, bound and ready to step.
    private func walkFacts(experiment: String, since: Timestamp?, until: Timestamp?, fields: FactFields,
                           _ body: (Statement) throws -> Void) throws {
        try readers.read { c in
            let bounded = since != nil || until != nil
            let s = try c.cached(Self.factsWalk(fields, bounded: bounded))
            defer { s.finish() }
            try s.bind(1, experiment)
            if bounded {
                try s.bind(2, since?.microseconds ?? Int64.min)
                try s.bind(3, until?.microseconds ?? Int64.max)
            }
            try body(s)
        }
    }

    /// `FactsReader.forEachFactTimes`: the same walk as `forEachFact`, reading only the variant, the user
    /// id (when there are users to leave out) and the times, with neither strings nor arrays made per row.
    public func forEachFactTimes(experiment: String, until: Timestamp?, variants: [String], excluding: Set<UserID>,
                                 _ body: (FactTimes) throws -> Void) throws {
        let keys = variants.map { Array($0.utf8) }
        let excluded = excluding.map { Array($0.utf8) }
        let at = FactColumns.times.layout
        func c(_ position: Int) -> Int32 { Int32(truncatingIfNeeded: position) }
        try readers.read { connection in
            let s = try connection.cached("""
                SELECT \(FactColumns.times.list) FROM facts WHERE experiment = ?1 AND first_exposure_ts < ?2 ORDER BY user_id
                """)
            defer { s.finish() }
            try s.bind(1, experiment)
            try s.bind(2, until?.microseconds ?? Int64.max)
            while try s.step() {
                // The variant by its bytes; a key equal only as a String (canonically) is still found.
                let arm = s.withText(c(at.variant)) { bytes in keys.firstIndex { $0.elementsEqual(bytes) } }
                    ?? variants.firstIndex(of: s.text(c(at.variant)))
                guard let arm else { continue }
                if !excluded.isEmpty {
                    // A few QA users: comparing bytes beats making and hashing an id per row.
                    let out = excluded.count <= 8
                        ? s.withText(c(at.userID)) { bytes in excluded.contains { $0.count == bytes.count && $0.elementsEqual(bytes) } }
                        : excluding.contains(UserID(s.text(c(at.userID))))
                    if out { continue }
                }
                try body(FactTimes(arm: arm, firstExposure: s.int64(c(at.firstExposure)), trialStart: s.optionalInt64(c(at.trialStart)),
                                   firstPaid: s.optionalInt64(c(at.firstPaid)), firstConverted: s.optionalInt64(c(at.firstConverted)),
                                   firstCancel: s.optionalInt64(c(at.firstCancel)), refundedAt: s.optionalInt64(c(at.refunded)),
                                   allocationPeriod: s.optionalInt64(c(at.allocationPeriod)), billingIssue: s.optionalInt64(c(at.billingIssue)),
                                   grantedTrialDays: s.optionalInt64(c(at.trialDays)).map { Int($0) },
                                   undoneCancels: EndSpan.decode(s.optionalText(c(at.undoneCancels)))))
            }
        }
    }

    /// `FactsReader.netRevenue`: a join of the facts on the events' `(user_id, event_id)` key.
    public func netRevenue(experiment: String, asOf: Timestamp, since: Timestamp?, until: Timestamp?) throws -> [UserID: Double] {
        try readers.read { c in
            let types = EventType.allCases.filter(\.carriesRevenue).map { String($0.rawValue) }.joined(separator: ", ")
            let s = try c.cached(PersonRevenueQuery.sql(types: types, parameter: "?"))
            defer { s.finish() }
            try s.bind(1, experiment)
            try s.bind(2, since?.microseconds ?? Int64.min)
            try s.bind(3, until?.microseconds ?? Int64.max)
            try s.bind(4, asOf.microseconds)
            var revenue: [UserID: Double] = [:]
            while try s.step() {
                guard let type = EventType(rawValue: Int(s.int64(1))) else { continue }
                revenue[UserID(s.text(0)), default: 0] += type.revenueContribution(s.double(2))
            }
            return revenue
        }
    }

    /// One user's facts in every experiment the user was exposed to, by experiment.
    public func facts(userID: UserID) throws -> [UserFacts] {
        try readers.read { try Self.facts(userID: userID, on: $0) }
    }

    private static func facts(userID: UserID, on c: Connection) throws -> [UserFacts] {
        let s = try c.cached("\(factColumns) WHERE user_id = ?1 ORDER BY experiment")
        defer { s.finish() }
        try s.bind(1, userID)
        var rows: [UserFacts] = []
        while try s.step() { rows.append(facts(from: s)) }
        return rows
    }

    /// Experiments with at least one exposure, by id.
    public func experiments() throws -> [ExperimentSummary] {
        try readers.read { c in
            let s = try c.cached("""
                SELECT experiment, COUNT(*), MIN(first_exposure_ts), MAX(first_exposure_ts)
                FROM facts GROUP BY experiment ORDER BY experiment
                """)
            defer { s.finish() }
            var rows: [ExperimentSummary] = []
            while try s.step() {
                rows.append(ExperimentSummary(experiment: s.text(0), users: Int(s.int64(1)),
                                              firstExposure: Timestamp(microseconds: s.int64(2)),
                                              lastExposure: Timestamp(microseconds: s.int64(3))))
            }
            return rows
        }
    }

    /// Users exposed to `experiment`, per variant.
    public func userCounts(experiment: String) throws -> [String: Int] {
        try readers.read { c in
            let s = try c.cached("SELECT variant, COUNT(*) FROM facts WHERE experiment = ?1 GROUP BY variant")
            defer { s.finish() }
            try s.bind(1, experiment)
            var counts: [String: Int] = [:]
            while try s.step() { counts[s.text(0)] = Int(s.int64(1)) }
            return counts
        }
    }

    /// Trial starters and Day-0 cancellers per variant of `experiment`, for the
    /// `day0_cancel_rate` metric with the experiment's `day0_window_hours`.
    public func day0Cancels(experiment: String, windowHours: Double = 24) throws -> [String: (trialStarters: Int, day0Cancels: Int)] {
        let window = Int64((windowHours * 3_600_000_000).rounded())
        return try readers.read { c in
            let s = try c.cached("""
                SELECT variant, COUNT(trial_start_ts),
                       SUM(first_cancel_ts IS NOT NULL AND trial_start_ts IS NOT NULL AND first_cancel_ts - trial_start_ts <= ?2)
                FROM facts WHERE experiment = ?1 GROUP BY variant
                """)
            defer { s.finish() }
            try s.bind(1, experiment)
            try s.bind(2, window)
            var out: [String: (Int, Int)] = [:]
            while try s.step() { out[s.text(0)] = (Int(s.int64(1)), Int(s.int64(2))) }
            return out
        }
    }

    /// Row counts.
    public func counts() throws -> StoreCounts {
        try readers.read { c in
            StoreCounts(events: Int(try c.scalarInt("SELECT COUNT(*) FROM events") ?? 0),
                        facts: Int(try c.scalarInt("SELECT COUNT(*) FROM facts") ?? 0),
                        experiments: Int(try c.scalarInt("SELECT COUNT(DISTINCT experiment) FROM facts") ?? 0))
        }
    }

    /// Every stored event, by user and event id (for export and consistency checks).
    public func forEachEvent(_ body: (Event) throws -> Void) throws {
        try readers.read { c in
            let s = try c.cached("SELECT \(EventColumns.names) FROM events ORDER BY user_id, event_id")
            defer { s.finish() }
            let positions = s.eventColumnPositions()
            while try s.step() { try body(s.event(at: positions)) }
        }
    }

    /// One user's stored events, in (ts, type, event_id) order.
    public func events(userID: UserID) throws -> [Event] {
        try readers.read { try Self.events(userID: userID, on: $0) }
    }

    private static func events(userID: UserID, on c: Connection) throws -> [Event] {
        let s = try c.cached("SELECT \(EventColumns.names) FROM events WHERE user_id = ?1 ORDER BY ts, type, event_id")
        defer { s.finish() }
        try s.bind(1, userID)
        let positions = s.eventColumnPositions()
        var rows: [Event] = []
        while try s.step() { rows.append(s.event(at: positions)) }
        return rows
    }

    /// One user's stored events (as `events(userID:)`) and facts (as `facts(userID:)`), read in
    /// one snapshot, for consistency checks while the store is being written.
    public func eventsAndFacts(userID: UserID) throws -> (events: [Event], facts: [UserFacts]) {
        try readers.read { (try Self.events(userID: userID, on: $0), try Self.facts(userID: userID, on: $0)) }
    }

    /// `PRAGMA integrity_check`: "ok" when the file is sound.
    public func integrityCheck() throws -> String {
        try readers.read { c in
            let s = try c.prepare("PRAGMA integrity_check")
            defer { s.finish() }
            var lines: [String] = []
            while try s.step() { lines.append(s.text(0)) }
            return lines.joined(separator: "\n")
        }
    }

    static let factColumns = factColumns(.all)

    /// The facts SELECT for `facts(from:)`, reading the columns of `fields` and NULL in place of the others
    /// (the experiment too when the caller knows it).
    static func factColumns(_ fields: FactFields, experimentKnown: Bool = false) -> String {
        "SELECT \(FactColumns.select(fields, experimentKnown: experimentKnown) { _ in "NULL" }) FROM facts"
    }

    /// One facts row; `experiment`, when the caller knows it, stands in for that column.
    static func facts(from s: Statement, experiment: String? = nil) -> UserFacts {
        var row = emptyRow(experiment: experiment ?? s.text(Int32(FactColumns.layout.experiment)))
        read(s, into: &row)
        return row
    }

    static func emptyRow(experiment: String) -> UserFacts {
        UserFacts(experiment: experiment, userID: UserID(""), variant: "", firstExposure: Timestamp(microseconds: 0))
    }

    /// Sets every field of `row` but its experiment from the statement's facts row, its columns found by
    /// name (`FactColumns.layout`).
    static func read(_ s: Statement, into row: inout UserFacts) {
        let at = FactColumns.layout
        func c(_ position: Int) -> Int32 { Int32(truncatingIfNeeded: position) }
        func ts(_ position: Int) -> Timestamp? { s.optionalInt64(c(position)).map(Timestamp.init(microseconds:)) }
        row.userID = UserID(s.text(c(at.userID)))
        row.variant = s.text(c(at.variant))
        row.firstExposure = Timestamp(microseconds: s.int64(c(at.firstExposure)))
        row.trialStart = ts(at.trialStart)
        row.firstPaid = ts(at.firstPaid)
        row.firstConverted = ts(at.firstConverted)
        row.firstCancel = ts(at.firstCancel)
        row.refundedAt = ts(at.refunded)
        row.netRevenue = s.double(c(at.netRevenue))
        row.revenueEntries = s.withBlob(c(at.revenueEntries)) { $0.isEmpty ? [] : RevenueEntry.decode($0) }
        row.crossedOver = s.int64(c(at.crossedOver)) != 0
        row.copySource = copySources.match(s, c(at.copySource))
        row.copyFallbackReason = s.optionalText(c(at.copyFallbackReason))
        row.placement = s.optionalText(c(at.placement))
        row.attributes = FactsRefresh.attributes(s, c(at.attributes))
        row.grantedTrialDays = s.optionalInt64(c(at.trialDays)).map { Int($0) }
        row.allocationPeriod = ts(at.allocationPeriod)
        row.expiredAt = ts(at.expired)
        row.expiryKind = expiryKinds.match(s, c(at.expiryKind))
        row.billingIssueAt = ts(at.billingIssue)
        row.firstUncancel = ts(at.firstUncancel)
        row.strayUncancel = ts(at.strayUncancel)
        row.undoneCancels = EndSpan.decode(s.optionalText(c(at.undoneCancels)))
        row.laterEnds = EndSpan.decode(s.optionalText(c(at.laterEnds)))
    }

    /// Appends the statement's facts row to `batch`, its columns found by name (`FactColumns.layout`):
    /// the columns `read(_:into:)` reads but the placement and attributes, no string made for a value
    /// the batch keeps once (variant, fallback reason, product ids) or as bytes (user id).
    static func read(_ s: Statement, into batch: inout FactBatch) {
        let at = FactColumns.layout
        func c(_ position: Int) -> Int32 { Int32(truncatingIfNeeded: position) }
        s.withText(c(at.userID)) { batch.set(userID: $0) }
        s.withText(c(at.variant)) { batch.set(variant: $0) }
        batch.set(.firstExposure, s.int64(c(at.firstExposure)))
        batch.set(.trialStart, s.optionalInt64(c(at.trialStart)))
        batch.set(.firstPaid, s.optionalInt64(c(at.firstPaid)))
        batch.set(.firstConverted, s.optionalInt64(c(at.firstConverted)))
        batch.set(.firstCancel, s.optionalInt64(c(at.firstCancel)))
        batch.set(.refunded, s.optionalInt64(c(at.refunded)))
        batch.set(netRevenue: s.double(c(at.netRevenue)))
        s.withBlob(c(at.revenueEntries)) { batch.appendRevenueEntries($0) }
        batch.set(crossedOver: s.int64(c(at.crossedOver)) != 0)
        batch.set(copySource: copySources.match(s, c(at.copySource)))
        s.withText(c(at.copyFallbackReason)) { batch.set(fallbackReason: $0) }
        batch.set(.trialDays, s.optionalInt64(c(at.trialDays)))
        batch.set(.allocationPeriod, s.optionalInt64(c(at.allocationPeriod)))
        batch.set(.expired, s.optionalInt64(c(at.expired)))
        batch.set(expiryKind: expiryKinds.match(s, c(at.expiryKind)))
        batch.set(.billingIssue, s.optionalInt64(c(at.billingIssue)))
        batch.set(.firstUncancel, s.optionalInt64(c(at.firstUncancel)))
        batch.set(.strayUncancel, s.optionalInt64(c(at.strayUncancel)))
        batch.append(undoneCancels: EndSpan.decode(s.optionalText(c(at.undoneCancels))),
                     laterEnds: EndSpan.decode(s.optionalText(c(at.laterEnds))))
        batch.endRow()
    }

    /// `copy_source` and `expiry_kind` matched on their bytes: a report reads them on every row, and a
    /// string made only to be switched on costs more than the match.
    private static let copySources = RawValueBytes<CopySource>()
    private static let expiryKinds = RawValueBytes<SubscriptionEndKind>()
}

/// A string enum's cases by the UTF-8 bytes of their raw values, to match a TEXT column without making a string.
struct RawValueBytes<Value: CaseIterable & RawRepresentable & Sendable>: Sendable where Value.RawValue == String {
    private let cases = Array(Value.allCases)
    private let bytes = Value.allCases.map { Array($0.rawValue.utf8) }

    /// The case whose raw value is `column`'s text; nil for NULL (no bytes, which no raw value is) or
    /// text no case has.
    func match(_ s: Statement, _ column: Int32) -> Value? {
        s.withText(column) { text in
            // Lengths first, then bytes, against arrays made once (a String's UTF-8 view compares slowly).
            for (i, known) in bytes.enumerated() where known.count == text.count {
                var same = true
                for j in 0..<known.count where known[j] != text[j] { same = false; break }
                if same { return cases[i] }
            }
            return nil
        }
    }
}
