import Events

/// The experiments one write transaction touches (each experiment of a facts row it writes), and
/// the step that moves their change counters before the commit (`ConsoleReportStore`).
///
/// Noted as facts are written, so it costs a set insert per row and one upsert per experiment per
/// transaction; a user with no exposure has no facts and touches nothing.
final class ExperimentChanges {
    private(set) var touched: Set<String> = []
    private var bump: Statement?

    func note(_ facts: [UserFacts]) {
        for f in facts { touched.insert(f.experiment) }
    }

    /// Moves each touched experiment's counter by one, in the open transaction, and starts over.
    func write(on connection: Connection) throws {
        defer { touched.removeAll(keepingCapacity: true) }
        guard !touched.isEmpty else { return }
        let statement = try connection.prepared(&bump, """
            INSERT INTO experiment_changes (experiment, counter) VALUES (?1, 1)
            ON CONFLICT (experiment) DO UPDATE SET counter = counter + 1
            """)
        for experiment in touched.sorted() {
            try statement.reset()
            try statement.bind(1, experiment)
            try statement.run()
        }
        statement.finish()
    }

    /// Forgets what a rolled-back transaction touched.
    func discard() { touched.removeAll(keepingCapacity: true) }
}
