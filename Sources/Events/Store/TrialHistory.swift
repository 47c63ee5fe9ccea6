import ExperimentDefinitions

/// What `DID_RENEW` needs from the store: App Store notifications do not say whether a renewal
/// is the first paid period after a free trial (`converted`) or a later one (`renewed`).
///
/// A store protocol every `EventStore` answers, so a renewal maps the same on every store and
/// in a server built in process.
public protocol TrialHistory: Sendable {
    /// Whether the user's latest `trial_started` has no `converted` after it.
    func trialAwaitingConversion(userID: UserID) throws -> Bool
}

extension TrialHistory {
    /// The answer from a user's events in (ts, type, event_id) order.
    public static func trialAwaitingConversion(in events: [Event]) -> Bool {
        var open = false
        for event in events {
            switch event.type {
            case .trialStarted: open = true
            case .converted: open = false
            default: break
            }
        }
        return open
    }
}
