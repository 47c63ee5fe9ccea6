import Events
import ExperimentDefinitions
import Foundation

extension SQLiteEventStore {
    /// `SafeguardStopStore.safeguardStops`, read by the reader pool.
    public func safeguardStops(experiment: String?) throws -> [SafeguardStop] {
        try readers.read { c in
            let s = try c.cached("""
                SELECT id, experiment, arm, metric, action, stopped_ts, figures, reset_ts, reset_by, notified_ts, reset_notified_ts
                FROM safeguard_stops WHERE ?1 IS NULL OR experiment = ?1 ORDER BY stopped_ts, id
                """)
            defer { s.finish() }
            try s.bind(1, experiment)
            var stops: [SafeguardStop] = []
            while try s.step() {
                guard let action = SafeguardsConfig.Action(rawValue: s.text(4)), let figures = SafeguardFigures(jsonText: s.text(6)) else { continue }
                stops.append(SafeguardStop(id: s.text(0), experiment: s.text(1), arm: s.text(2), metric: s.text(3), action: action,
                                           stoppedAt: Timestamp(microseconds: s.int64(5)), figures: figures,
                                           resetAt: s.optionalInt64(7).map(Timestamp.init(microseconds:)), resetBy: s.optionalText(8),
                                           notifiedAt: s.optionalInt64(9).map(Timestamp.init(microseconds:)),
                                           resetNotifiedAt: s.optionalInt64(10).map(Timestamp.init(microseconds:))))
            }
            return stops
        }
    }

    /// `SafeguardStopStore.recordSafeguardStop`: one INSERT in a transaction of its own; the partial
    /// unique index keeps a second stop of an arm already stopped out.
    public func recordSafeguardStop(_ stop: SafeguardStop) throws -> Bool {
        try writer.perform(context: "record safeguard stop") { c in
            let s = try c.cached("""
                INSERT OR IGNORE INTO safeguard_stops (id, experiment, arm, metric, action, stopped_ts, figures, reset_ts, reset_by, notified_ts)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, NULL, NULL, NULL)
                """)
            defer { s.finish() }
            try s.bind(1, stop.id)
            try s.bind(2, stop.experiment)
            try s.bind(3, stop.arm)
            try s.bind(4, stop.metric)
            try s.bind(5, stop.action.rawValue)
            try s.bind(6, stop.stoppedAt.microseconds)
            try s.bind(7, stop.figures.json.serialized())
            try s.run()
            return try c.scalarInt("SELECT changes()") == 1
        }
    }

    public func resetSafeguardStops(experiment: String, arm: String, by who: String, at time: Timestamp) throws -> Int {
        try writer.perform(context: "reset safeguard stop") { c in
            let s = try c.cached("UPDATE safeguard_stops SET reset_ts = ?1, reset_by = ?2 WHERE experiment = ?3 AND arm = ?4 AND reset_ts IS NULL")
            defer { s.finish() }
            try s.bind(1, time.microseconds)
            try s.bind(2, who)
            try s.bind(3, experiment)
            try s.bind(4, arm)
            try s.run()
            return Int(try c.scalarInt("SELECT changes()") ?? 0)
        }
    }

    public func markSafeguardStopNotified(id: String, at time: Timestamp) throws {
        try mark("UPDATE safeguard_stops SET notified_ts = ?1 WHERE id = ?2 AND notified_ts IS NULL", id: id, at: time,
                 context: "mark safeguard stop notified")
    }

    public func markSafeguardResetNotified(id: String, at time: Timestamp) throws {
        try mark("UPDATE safeguard_stops SET reset_notified_ts = ?1 WHERE id = ?2 AND reset_ts IS NOT NULL AND reset_notified_ts IS NULL",
                 id: id, at: time, context: "mark safeguard reset notified")
    }

    /// One of the outbox's marks: `sql` sets ?1 (the time) on stop ?2 once.
    private func mark(_ sql: String, id: String, at time: Timestamp, context: String) throws {
        try writer.perform(context: context) { c in
            let s = try c.cached(sql)
            defer { s.finish() }
            try s.bind(1, time.microseconds)
            try s.bind(2, id)
            try s.run()
        }
    }

    /// One serving process evaluates a SQLite store; the unique index still keeps a second
    /// stop of a stopped arm out if a `safeguards check` runs beside it.
    public func withSafeguardLease<T>(_ body: () throws -> T) throws -> T? { try body() }
}
