import ExperimentDefinitions
import PostgresStore
import Server

/// PostgreSQL answers the App Store webhook's renewal question from the user's stored events,
/// as SQLite does, so a `DID_RENEW` maps to `converted` or `renewed` the same on every node.
extension PostgresEventStore: TrialHistory {
    public func trialAwaitingConversion(userID: UserID) throws -> Bool {
        Self.trialAwaitingConversion(in: try events(userID: userID))
    }
}
