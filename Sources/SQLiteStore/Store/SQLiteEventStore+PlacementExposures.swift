import Events

extension SQLiteEventStore {
    /// `PlacementExposureCounts.exposures`, read through the `events_placement_exposures` index alone.
    public func exposures(placement: String, since: Timestamp, until: Timestamp) throws -> [String: Int] {
        try readers.read { c in
            let s = try c.cached(Self.placementExposuresSQL)
            defer { s.finish() }
            try s.bind(1, placement)
            try s.bind(2, since.microseconds)
            try s.bind(3, until.microseconds)
            var counts: [String: Int] = [:]
            while try s.step() { counts[s.text(0)] = Int(s.int64(1)) }
            return counts
        }
    }

    /// One placement's exposures from ?2 to ?3 by experiment, answered by the index alone.
    static let placementExposuresSQL = """
        SELECT experiment, count(*) FROM events
        WHERE \(PlacementExposureQuery.condition) AND placement = ?1 AND ts >= ?2 AND ts < ?3
        GROUP BY experiment
        """
}
