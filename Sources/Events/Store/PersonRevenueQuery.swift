/// The one SQL both stores read a person's revenue events with (`FactsReader.netRevenue`).
public enum PersonRevenueQuery {
    /// The revenue events of each person of an experiment first exposed in [`p2`, `p3`), up to `p4`
    /// inclusive, in `FactsBuilder`'s order: a person's events are those of all its ids,
    /// through `people` for a person of several ids. `parameter` is `?` (SQLite) or `$` (PostgreSQL).
    public static func sql(types: String, parameter p: String) -> String {
        let conditions = """
            f.experiment = \(p)1 AND f.first_exposure_ts >= \(p)2 AND f.first_exposure_ts < \(p)3
              AND e.type IN (\(types)) AND e.revenue IS NOT NULL AND e.ts >= f.first_exposure_ts AND e.ts <= \(p)4
            """
        return """
            SELECT f.user_id, e.type, e.revenue, e.ts, e.event_id, e.user_id AS member FROM facts f JOIN events e ON e.user_id = f.user_id
            WHERE \(conditions) AND NOT EXISTS (SELECT 1 FROM people q WHERE q.person_id = f.user_id)
            UNION ALL
            SELECT f.user_id, e.type, e.revenue, e.ts, e.event_id, e.user_id AS member FROM facts f
              JOIN people q ON q.person_id = f.user_id JOIN events e ON e.user_id = q.user_id
            WHERE \(conditions)
            ORDER BY 1, 4, 2, 5, 6
            """
    }
}
