import Events
import ExperimentDefinitions

extension PostgresEventStore {
    public func safeguardStops(experiment: String?) throws -> [SafeguardStop] {
        try readers.withConnection { c in
            let rows = try c.executePrepared("safeguard_stops", """
                SELECT id, experiment, arm, metric, action, stopped_ts, figures, reset_ts, reset_by, notified_ts, reset_notified_ts
                FROM safeguard_stops WHERE $1::text IS NULL OR experiment = $1 ORDER BY stopped_ts, id
                """, [experiment], context: "read safeguard stops")
            var stops: [SafeguardStop] = []
            for r in 0..<rows.count {
                guard let action = SafeguardsConfig.Action(rawValue: rows.text(r, 4)), let figures = SafeguardFigures(jsonText: rows.text(r, 6)) else { continue }
                stops.append(SafeguardStop(id: rows.text(r, 0), experiment: rows.text(r, 1), arm: rows.text(r, 2), metric: rows.text(r, 3),
                                           action: action, stoppedAt: Timestamp(microseconds: rows.int64(r, 5)), figures: figures,
                                           resetAt: rows.optionalInt64(r, 7).map(Timestamp.init(microseconds:)), resetBy: rows.optionalText(r, 8),
                                           notifiedAt: rows.optionalInt64(r, 9).map(Timestamp.init(microseconds:)),
                                           resetNotifiedAt: rows.optionalInt64(r, 10).map(Timestamp.init(microseconds:))))
            }
            return stops
        }
    }

    /// One INSERT (its own transaction); the partial unique index keeps a second stop of an
    /// arm already stopped out, whichever node writes it.
    public func recordSafeguardStop(_ stop: SafeguardStop) throws -> Bool {
        try readers.withConnection { c in
            try c.executePrepared("record_safeguard_stop", """
                INSERT INTO safeguard_stops (id, experiment, arm, metric, action, stopped_ts, figures)
                VALUES ($1, $2, $3, $4, $5, $6, $7)
                ON CONFLICT (experiment, arm) WHERE reset_ts IS NULL DO NOTHING
                """, [stop.id, stop.experiment, stop.arm, stop.metric, stop.action.rawValue, String(stop.stoppedAt.microseconds),
                      stop.figures.json.serialized()], context: "record safeguard stop").affectedRows == 1
        }
    }

    public func resetSafeguardStops(experiment: String, arm: String, by who: String, at time: Timestamp) throws -> Int {
        try readers.withConnection { c in
            try c.executePrepared("reset_safeguard_stops", """
                UPDATE safeguard_stops SET reset_ts = $1, reset_by = $2 WHERE experiment = $3 AND arm = $4 AND reset_ts IS NULL
                """, [String(time.microseconds), who, experiment, arm], context: "reset safeguard stop").affectedRows
        }
    }

    public func markSafeguardStopNotified(id: String, at time: Timestamp) throws {
        try readers.withConnection { c in
            _ = try c.executePrepared("mark_safeguard_stop_notified",
                                      "UPDATE safeguard_stops SET notified_ts = $1 WHERE id = $2 AND notified_ts IS NULL",
                                      [String(time.microseconds), id], context: "mark safeguard stop notified")
        }
    }

    public func markSafeguardResetNotified(id: String, at time: Timestamp) throws {
        try readers.withConnection { c in
            _ = try c.executePrepared("mark_safeguard_reset_notified",
                                      "UPDATE safeguard_stops SET reset_notified_ts = $1 WHERE id = $2 AND reset_ts IS NOT NULL AND reset_notified_ts IS NULL",
                                      [String(time.microseconds), id], context: "mark safeguard reset notified")
        }
    }

    /// A session advisory lock on one pooled connection for the length of `body`: one node at a
    /// time evaluates; if that node dies, its session ends, the lock goes, and another takes over.
    public func withSafeguardLease<T>(_ body: () throws -> T) throws -> T? {
        try readers.withConnection { c in
            let got = try c.execute("SELECT pg_try_advisory_lock(\(PostgresSchema.safeguardLockKey))", context: "safeguard lease").bool(0, 0)
            guard got else { return nil }
            defer { _ = try? c.execute("SELECT pg_advisory_unlock(\(PostgresSchema.safeguardLockKey))", context: "safeguard lease (release)") }
            return try body()
        }
    }
}
