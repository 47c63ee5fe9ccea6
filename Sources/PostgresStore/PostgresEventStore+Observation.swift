import Events

extension PostgresEventStore {
    /// The recorded end of observation, if any.
    public func observedUntil() throws -> Timestamp? {
        try readers.withConnection { c in
            let rows = try c.executePrepared("observed_until", "SELECT observed_until_ts FROM observation WHERE id = 1", [],
                                             context: "read observed until")
            return rows.count > 0 ? Timestamp(microseconds: rows.int64(0, 0)) : nil
        }
    }

    /// How many events the store holds at or after `time` (a scan, asked only for an `until` after now).
    public func eventCount(from time: Timestamp) throws -> Int {
        try readers.withConnection { c in
            let rows = try c.executePrepared("event_count_from", "SELECT count(*) FROM events WHERE ts >= $1", [String(time.microseconds)],
                                             context: "count events after a moment")
            return rows.count > 0 ? Int(rows.int64(0, 0)) : 0
        }
    }

    /// Records (or replaces) the end of observation; returns after the commit.
    public func recordObservedUntil(_ time: Timestamp) throws {
        try readers.withConnection { c in
            _ = try c.executePrepared("record_observed_until", """
                INSERT INTO observation (id, observed_until_ts) VALUES (1, $1)
                ON CONFLICT (id) DO UPDATE SET observed_until_ts = EXCLUDED.observed_until_ts
                """, [String(time.microseconds)], context: "record observed until")
        }
    }
}
