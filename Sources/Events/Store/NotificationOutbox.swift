import ExperimentDefinitions

/// The notifications outbox (`--notify-url`): each notification is recorded once per (id,
/// target) before anything is sent, whichever node records it; the sending node claims one at a
/// time for a while, tries it, and records the outcome. A notification acknowledged (2xx) is
/// never claimed again, so a restart, a killed process or a second node sends it at most once
/// after its success was recorded; one whose claim ran out (its sender died mid-try) is claimed
/// again.
public protocol NotificationOutbox: Sendable {
    /// Records `notification` for each of `targets` unless a row of that (id, target) exists:
    /// returns how many rows were new. With no target, nothing is recorded.
    func recordNotification(_ notification: OutboxNotification, targets: [String]) throws -> Int

    /// Claims the oldest pending notification due at `now` that no other claimant holds (or whose
    /// claim ran out), for `claimant` until `until`; nil when none is due.
    func claimNotification(claimant: String, now: Timestamp, until: Timestamp) throws -> OutboxNotification?

    /// Records one try of (id, target) claimed by `claimant`: its count goes up by one and its
    /// claim is released. Does nothing when the row is no longer pending or claimed by another.
    func finishNotificationTry(id: String, target: String, claimant: String, outcome: OutboxTryOutcome) throws

    /// Every recorded row of `experiment` (of every experiment when nil), oldest first.
    func notifications(experiment: String?) throws -> [OutboxNotification]

    /// The rows given up as failed, the latest to fail first, at most `limit`: what a person is
    /// shown without reading the whole outbox.
    func failedNotifications(limit: Int) throws -> [OutboxNotification]
}

/// What one try came to.
public enum OutboxTryOutcome: Sendable, Equatable {
    /// A 2xx: never sent again.
    case delivered(at: Timestamp)
    /// Tried again at `next`.
    case retry(next: Timestamp, error: String)
    /// Given up (a 4xx other than 408 and 429, or retried for the whole retry window).
    case failed(at: Timestamp, error: String)
}

extension OutboxTryOutcome {
    /// What a store records for it: the row's state, its next try (nil: unchanged), when it
    /// finished, and the error.
    public var columns: (state: OutboxNotification.State, nextTry: Timestamp?, finished: Timestamp?, error: String?) {
        switch self {
        case .delivered(let at): (.delivered, nil, at, nil)
        case .retry(let next, let error): (.pending, next, nil, error)
        case .failed(let at, let error): (.failed, nil, at, error)
        }
    }
}
