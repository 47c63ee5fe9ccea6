import Events
import ExperimentDefinitions

extension PostgresEventStore {
    /// The line cached for (experiment, variant, brief), if any.
    public func cachedCopyLine(experiment: String, variant: String, brief: String) throws -> CachedCopyLine? {
        try readers.withConnection { c in
            let rows = try c.executePrepared("copy_line",
                                             "SELECT line, created_ts FROM copy_cache WHERE experiment = $1 AND variant = $2 AND brief = $3",
                                             [experiment, variant, brief], context: "read copy line")
            return rows.count > 0 ? CachedCopyLine(line: rows.text(0, 0), createdAt: Timestamp(microseconds: rows.int64(0, 1))) : nil
        }
    }

    /// Stores (or replaces) the line for (experiment, variant, brief); returns after the commit.
    public func saveCopyLine(_ line: String, experiment: String, variant: String, brief: String, at time: Timestamp) throws {
        try readers.withConnection { c in
            _ = try c.executePrepared("save_copy_line", """
                INSERT INTO copy_cache (experiment, variant, brief, line, created_ts) VALUES ($1, $2, $3, $4, $5)
                ON CONFLICT (experiment, variant, brief) DO UPDATE SET line = EXCLUDED.line, created_ts = EXCLUDED.created_ts
                """, [experiment, variant, brief, line, String(time.microseconds)], context: "save copy line")
        }
    }
}
