import Events

extension SQLiteEventStore {
    /// `ConsoleReportStore.experimentChangeCounters`, read by the reader pool.
    public func experimentChangeCounters() throws -> [String: Int64] {
        try readers.read { c in
            let s = try c.cached("SELECT experiment, counter FROM experiment_changes")
            defer { s.finish() }
            var counters: [String: Int64] = [:]
            while try s.step() { counters[s.text(0)] = s.int64(1) }
            return counters
        }
    }

    /// `ConsoleReportStore.keepConsoleReport`.
    public func keepConsoleReport(_ report: StoredConsoleReport) throws {
        try writer.perform(context: "keep console report") { c in
            let s = try c.cached("""
                INSERT INTO console_reports (experiment, counter, inputs, generated_ts, computed_ts, summary, body)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
                ON CONFLICT (experiment) DO UPDATE SET counter = ?2, inputs = ?3, generated_ts = ?4, computed_ts = ?5,
                    summary = ?6, body = ?7
                """)
            defer { s.finish() }
            try s.bind(1, report.experiment)
            try s.bind(2, report.counter)
            try s.bind(3, report.inputs)
            try s.bind(4, report.generatedAt.microseconds)
            try s.bind(5, report.computedAt.microseconds)
            try s.bind(6, report.summary)
            try s.bind(7, report.body)
            try s.run()
        }
    }

    /// `ConsoleReportStore.consoleReports(bodies:)`.
    public func consoleReports(bodies: Bool) throws -> [String: StoredConsoleReport] {
        try readers.read { c in
            let s = try c.cached("""
                SELECT experiment, counter, inputs, generated_ts, computed_ts, summary, \(bodies ? "body" : "''") FROM console_reports
                """)
            defer { s.finish() }
            var reports: [String: StoredConsoleReport] = [:]
            while try s.step() {
                let report = Self.consoleReport(s)
                reports[report.experiment] = report
            }
            return reports
        }
    }

    /// `ConsoleReportStore.consoleReport(experiment:)`.
    public func consoleReport(experiment: String) throws -> StoredConsoleReport? {
        try readers.read { c in
            let s = try c.cached("""
                SELECT experiment, counter, inputs, generated_ts, computed_ts, summary, body FROM console_reports WHERE experiment = ?1
                """)
            defer { s.finish() }
            try s.bind(1, experiment)
            return try s.step() ? Self.consoleReport(s) : nil
        }
    }

    /// A row of `console_reports`, in the column order both reads select.
    private static func consoleReport(_ s: Statement) -> StoredConsoleReport {
        StoredConsoleReport(experiment: s.text(0), counter: s.int64(1), inputs: s.text(2),
                            generatedAt: Timestamp(microseconds: s.int64(3)), computedAt: Timestamp(microseconds: s.int64(4)),
                            summary: s.text(5), body: s.text(6))
    }
}
