import Events

extension PostgresEventStore {
    /// `ConsoleReportStore.experimentChangeCounters`: each experiment's shards summed.
    public func experimentChangeCounters() throws -> [String: Int64] {
        try readers.withConnection { c in
            let rows = try c.executePrepared("experiment_changes", "SELECT experiment, sum(counter)::bigint FROM experiment_changes GROUP BY experiment",
                                             [], context: "read experiment change counters")
            var counters: [String: Int64] = [:]
            for row in 0..<rows.count { counters[rows.text(row, 0)] = rows.int64(row, 1) }
            return counters
        }
    }

    /// `ConsoleReportStore.keepConsoleReport`.
    public func keepConsoleReport(_ report: StoredConsoleReport) throws {
        try readers.withConnection { c in
            _ = try c.executePrepared("console_report_keep", """
                INSERT INTO console_reports (experiment, counter, inputs, generated_ts, computed_ts, summary, body)
                VALUES ($1, $2, $3, $4, $5, $6, $7)
                ON CONFLICT (experiment) DO UPDATE SET counter = EXCLUDED.counter, inputs = EXCLUDED.inputs,
                    generated_ts = EXCLUDED.generated_ts, computed_ts = EXCLUDED.computed_ts, summary = EXCLUDED.summary,
                    body = EXCLUDED.body
                """, [report.experiment, String(report.counter), report.inputs, String(report.generatedAt.microseconds),
                      String(report.computedAt.microseconds), report.summary, report.body], context: "keep console report")
        }
    }

    /// `ConsoleReportStore.consoleReports(bodies:)`.
    public func consoleReports(bodies: Bool) throws -> [String: StoredConsoleReport] {
        try readers.withConnection { c in
            let rows = try c.executePrepared(bodies ? "console_reports_bodies" : "console_reports", """
                SELECT experiment, counter, inputs, generated_ts, computed_ts, summary, \(bodies ? "body" : "''") FROM console_reports
                """, [], context: "read console reports")
            var reports: [String: StoredConsoleReport] = [:]
            for row in 0..<rows.count {
                let report = Self.consoleReport(rows, row)
                reports[report.experiment] = report
            }
            return reports
        }
    }

    /// `ConsoleReportStore.consoleReport(experiment:)`.
    public func consoleReport(experiment: String) throws -> StoredConsoleReport? {
        try readers.withConnection { c in
            let rows = try c.executePrepared("console_report", """
                SELECT experiment, counter, inputs, generated_ts, computed_ts, summary, body FROM console_reports WHERE experiment = $1
                """, [experiment], context: "read console report")
            return rows.count > 0 ? Self.consoleReport(rows, 0) : nil
        }
    }

    /// Row `row` of `console_reports`, in the column order both reads select.
    private static func consoleReport(_ rows: ResultSet, _ row: Int) -> StoredConsoleReport {
        StoredConsoleReport(experiment: rows.text(row, 0), counter: rows.int64(row, 1), inputs: rows.text(row, 2),
                            generatedAt: Timestamp(microseconds: rows.int64(row, 3)), computedAt: Timestamp(microseconds: rows.int64(row, 4)),
                            summary: rows.text(row, 5), body: rows.text(row, 6))
    }
}
