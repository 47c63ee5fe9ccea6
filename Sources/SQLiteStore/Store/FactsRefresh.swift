import Events
import ExperimentDefinitions

/// Recomputes one user's facts rows from the user's stored events: the SQL and the binding the
/// writer uses after each batch, and a schema migration uses when it adds a facts column.
enum FactsRefresh {
    static let selectEventsSQL = "SELECT \(EventColumns.names(FactsBuilder.Source.columns)) FROM events WHERE user_id = ?"

    /// Every column of `FactColumns`, bound in its order; a row already there takes the bound values
    /// again (`?n`).
    static let upsertSQL = FactColumns.upsert("VALUES (\(FactColumns.all.indices.map { "?\($0 + 1)" }.joined(separator: ", ")))") {
        position, _ in "?\(position + 1)"
    }

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
        let columns = FactColumns.readers
        // By pointer, each row read in place: a `UserFacts` passed on copied every string and array.
        try facts.withUnsafeBufferPointer { rows in
            for row in rows.indices {
                try upsert.reset()
                for index in columns.indices {
                    try upsert.bind(Int32(index + 1), columns[index](rows.baseAddress! + row))
                }
                try upsert.run()
            }
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
