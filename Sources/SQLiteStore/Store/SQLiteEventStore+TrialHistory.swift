import Events
import ExperimentDefinitions

/// SQLite answers the webhooks' renewal question from the user's stored events.
extension SQLiteEventStore {
    public func trialAwaitingConversion(userID: UserID) throws -> Bool {
        Self.trialAwaitingConversion(in: try events(userID: userID))
    }
}
