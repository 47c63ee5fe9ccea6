import Events

extension PostgresEventStore {
    /// `PlacementExposureCounts.exposures`, read through the `events_placement_exposures` index.
    public func exposures(placement: String, since: Timestamp, until: Timestamp) throws -> [String: Int] {
        try readers.withConnection { c in
            let rows = try c.executePrepared("placement_exposures", Self.placementExposuresSQL, [placement, String(since.microseconds), String(until.microseconds)], context: "count a placement's exposures")
            var counts: [String: Int] = [:]
            for row in 0..<rows.count { counts[rows.text(row, 0)] = Int(rows.int64(row, 1)) }
            return counts
        }
    }

    /// One placement's exposures from $2 to $3 by experiment, read through its index.
    static let placementExposuresSQL = """
        SELECT experiment, count(*) FROM events
        WHERE \(PlacementExposureQuery.condition) AND placement = $1 AND ts >= $2 AND ts < $3
        GROUP BY experiment
        """
}
