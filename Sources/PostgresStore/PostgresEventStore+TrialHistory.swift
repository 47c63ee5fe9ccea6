import Events
import ExperimentDefinitions

/// PostgreSQL answers the webhooks' renewal question from the user's stored events, as SQLite
/// does, so a `DID_RENEW` maps to `converted` or `renewed` the same on every node.
extension PostgresEventStore {
    public func trialAwaitingConversion(userID: UserID) throws -> Bool {
        Self.trialAwaitingConversion(in: try events(userID: userID))
    }
}
