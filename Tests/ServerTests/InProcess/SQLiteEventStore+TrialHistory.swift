import ExperimentDefinitions
import Server
import SQLiteStore

/// The conformance `abctl` adds (Sources/abctl/Stores/SQLiteEventStore+TrialHistory.swift), so the
/// in-process server maps a renewal after a trial to `converted` as `abctl serve` does. Without it
/// `Backend` finds no `TrialHistory` and records every renewal as `renewed` (issue 39 item 3:
/// delete this file when trial history becomes a required method of the store protocol).
extension SQLiteEventStore: TrialHistory {
    public func trialAwaitingConversion(userID: UserID) throws -> Bool {
        Self.trialAwaitingConversion(in: try events(userID: userID))
    }
}
