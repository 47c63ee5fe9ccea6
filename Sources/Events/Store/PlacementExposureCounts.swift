/// How a placement's exposures split between the experiments its audiences show, in a window
/// (the console's placements page). An exposure names the placement it was shown in and its
/// experiment, so each count is by those two fields of the stored event.
public protocol PlacementExposureCounts: Sendable {
    /// The exposures naming `placement` with `since <= ts < until`, counted by the exposure's
    /// experiment; an experiment with none is absent.
    func exposures(placement: String, since: Timestamp, until: Timestamp) throws -> [String: Int]
}

/// The SQL both stores share for `exposures(placement:since:until:)`: which events are counted.
/// Only an exposure carries a placement (the events' declaration, `EventField`), so the rows with
/// one are the exposures shown in a placement. Both stores index them by (placement, ts,
/// experiment) under this very condition, since a planner uses a partial index only for a query
/// that states its condition, and the index then holds every column the count reads.
public enum PlacementExposureQuery {
    public static let condition = "placement IS NOT NULL"
}
