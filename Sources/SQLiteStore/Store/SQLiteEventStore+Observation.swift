import Events

extension SQLiteEventStore {
    /// `ObservationWindowStore.observedUntil`, read by the reader pool.
    public func observedUntil() throws -> Timestamp? {
        try readers.read { c in
            let s = try c.cached("SELECT observed_until_ts FROM observation WHERE id = 1")
            defer { s.finish() }
            return try s.step() ? Timestamp(microseconds: s.int64(0)) : nil
        }
    }

    /// `ObservationWindowReader.eventCount(from:)`: a scan of the events, asked only for an `until` after now.
    public func eventCount(from time: Timestamp) throws -> Int {
        try readers.read { c in
            let s = try c.cached("SELECT count(*) FROM events WHERE ts >= ?1")
            defer { s.finish() }
            try s.bind(1, time.microseconds)
            return try s.step() ? Int(s.int64(0)) : 0
        }
    }

    /// `ObservationWindowStore.recordObservedUntil`, in a transaction of its own on the single writer.
    public func recordObservedUntil(_ time: Timestamp) throws {
        try writer.perform(context: "record observed until") { c in
            let s = try c.cached("INSERT OR REPLACE INTO observation (id, observed_until_ts) VALUES (1, ?1)")
            defer { s.finish() }
            try s.bind(1, time.microseconds)
            try s.run()
        }
    }
}
