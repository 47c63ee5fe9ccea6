import ExperimentDefinitions
import Server
import SQLiteStore

/// SQLite answers the App Store webhook's renewal question from the user's stored events.
extension SQLiteEventStore: TrialHistory {
    public func trialAwaitingConversion(userID: UserID) throws -> Bool {
        Self.trialAwaitingConversion(in: try events(userID: userID))
    }
}
