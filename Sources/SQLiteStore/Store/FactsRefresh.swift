import Events
import ExperimentDefinitions

/// Recomputes one user's facts rows from the user's stored events: the SQL and the binding the
/// writer uses after each batch, and a schema migration uses when it adds a facts column.
enum FactsRefresh {
    static let selectEventsSQL = "SELECT \(EventColumns.names(FactsBuilder.Source.columns)) FROM events WHERE user_id = ?"

    static let upsertSQL = """
        INSERT INTO facts (experiment, user_id, variant, first_exposure_ts, trial_start_ts, first_paid_ts,
            first_converted_ts, first_cancel_ts, refunded_ts, net_revenue, copy_source, copy_fallback_reason,
            revenue_entries, crossed_over, placement, attributes, trial_days, allocation_period_ts,
            expired_ts, expiry_kind, billing_issue_ts, first_uncancel_ts, stray_uncancel_ts, undone_cancels, later_ends)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25)
        ON CONFLICT (experiment, user_id) DO UPDATE SET
            variant = ?3, first_exposure_ts = ?4, trial_start_ts = ?5, first_paid_ts = ?6, first_converted_ts = ?7,
            first_cancel_ts = ?8, refunded_ts = ?9, net_revenue = ?10, copy_source = ?11, copy_fallback_reason = ?12,
            revenue_entries = ?13, crossed_over = ?14, placement = ?15, attributes = ?16, trial_days = ?17,
            allocation_period_ts = ?18, expired_ts = ?19, expiry_kind = ?20, billing_issue_ts = ?21,
            first_uncancel_ts = ?22, stray_uncancel_ts = ?23, undone_cancels = ?24, later_ends = ?25
        """

    /// Reads `userID`'s events with `select` (prepared from `selectEventsSQL`) and writes the facts with
    /// `upsert`, noting their experiments in `changes`.
    static func refresh(userID: UserID, select: Statement, upsert: Statement, changes: ExperimentChanges? = nil) throws {
        let sources = try storedSources(userID: userID, select: select)
        try write(FactsBuilder.facts(userID: userID, events: sources), upsert: upsert, changes: changes)
    }

    /// `userID`'s stored events as `FactsBuilder` takes them, read with `select` (from `selectEventsSQL`),
    /// each column found by its name.
    static func storedSources(userID: UserID, select: Statement) throws -> [FactsBuilder.Source] {
        try select.bind(1, userID)
        defer { select.finish() }
        let columns = FactsBuilder.Source.columns, positions = select.eventColumnPositions(columns)
        var sources: [FactsBuilder.Source] = []
        while try select.step() { sources.append(FactsBuilder.Source(select.event(at: positions, columns))) }
        return sources
    }

    /// Writes one user's facts rows with `upsert` (prepared from `upsertSQL`); a write of events notes
    /// their experiments in `changes` (a migration's refresh moves no counter).
    static func write(_ facts: [UserFacts], upsert: Statement, changes: ExperimentChanges? = nil) throws {
        changes?.note(facts)
        for f in facts {
            try upsert.reset()
            try upsert.bind(1, f.experiment)
            try upsert.bind(2, f.userID)
            try upsert.bind(3, f.variant)
            try upsert.bind(4, f.firstExposure.microseconds)
            try upsert.bind(5, f.trialStart?.microseconds)
            try upsert.bind(6, f.firstPaid?.microseconds)
            try upsert.bind(7, f.firstConverted?.microseconds)
            try upsert.bind(8, f.firstCancel?.microseconds)
            try upsert.bind(9, f.refundedAt?.microseconds)
            try upsert.bind(10, f.netRevenue)
            try upsert.bind(11, f.copySource?.rawValue)
            try upsert.bind(12, f.copyFallbackReason)
            try upsert.bind(13, blob: RevenueEntry.encode(f.revenueEntries))
            try upsert.bind(14, Int64(f.crossedOver ? 1 : 0))
            try upsert.bind(15, f.placement)
            try upsert.bind(16, blob: f.attributes.isEmpty ? nil : f.attributes.encoded)
            try upsert.bind(17, f.grantedTrialDays.map(Int64.init))
            try upsert.bind(18, f.allocationPeriod?.microseconds)
            try upsert.bind(19, f.expiredAt?.microseconds)
            try upsert.bind(20, f.expiryKind?.rawValue)
            try upsert.bind(21, f.billingIssueAt?.microseconds)
            try upsert.bind(22, f.firstUncancel?.microseconds)
            try upsert.bind(23, f.strayUncancel?.microseconds)
            try upsert.bind(24, EndSpan.encode(f.undoneCancels))
            try upsert.bind(25, EndSpan.encode(f.laterEnds))
            try upsert.run()
        }
    }

    /// An `attributes` column (NULL when the exposure carried none).
    static func attributes(_ s: Statement, _ column: Int32) -> ExposureAttributes {
        s.isNull(column) ? .empty : ExposureAttributes(encoded: s.withBlob(column) { Array($0) })
    }

    /// Recomputes every exposed user's facts (a migration that added facts columns).
    static func refreshAll(_ connection: Connection) throws {
        let users = try connection.prepare("SELECT DISTINCT user_id FROM facts")
        var ids: [UserID] = []
        while try users.step() { ids.append(UserID(users.text(0))) }
        users.finish()
        let select = try connection.prepare(selectEventsSQL), upsert = try connection.prepare(upsertSQL)
        for id in ids { try refresh(userID: id, select: select, upsert: upsert) }
    }
}
