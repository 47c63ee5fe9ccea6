/// One row of the notifications outbox (`NotificationOutbox`): what to send, to which target, and
/// how far its delivery got.
public struct OutboxNotification: Sendable, Equatable {
    public enum State: String, Sendable, CaseIterable {
        /// Waiting for its first or next try.
        case pending
        /// A receiver answered 2xx.
        case delivered
        /// Given up; shown in `/metrics` and by `abctl safeguards check`.
        case failed
        /// A record that is never sent: it remembers a state (a sample ratio mismatch that cleared).
        case quiet
    }

    /// Stable per occurrence: the same on every node and after any restart.
    public var id: String
    /// Where it goes (a `--notify-url` as given); empty for a quiet record.
    public var target: String
    /// `safeguard_stop`, `safeguard_reset`, `decision_ready`, `sample_ratio_mismatch`, `no_data`, `past_end`.
    public var type: String
    public var experiment: String
    /// When the occurrence happened (a stop's time, the moment a condition was found).
    public var at: Timestamp
    /// One line in words.
    public var text: String
    /// The `details` object, as JSON text.
    public var details: String
    public var state: State
    /// Tries made so far.
    public var attempts: Int
    /// When it was recorded: the retry window counts from here.
    public var recordedAt: Timestamp
    /// Not tried before this time.
    public var nextTryAt: Timestamp
    public var claimedBy: String?
    public var claimedUntil: Timestamp?
    /// When it was delivered or given up.
    public var finishedAt: Timestamp?
    public var lastError: String?

    public init(id: String, target: String = "", type: String, experiment: String, at: Timestamp, text: String, details: String,
                state: State = .pending, attempts: Int = 0, recordedAt: Timestamp, nextTryAt: Timestamp? = nil,
                claimedBy: String? = nil, claimedUntil: Timestamp? = nil, finishedAt: Timestamp? = nil, lastError: String? = nil) {
        self.id = id
        self.target = target
        self.type = type
        self.experiment = experiment
        self.at = at
        self.text = text
        self.details = details
        self.state = state
        self.attempts = attempts
        self.recordedAt = recordedAt
        self.nextTryAt = nextTryAt ?? recordedAt
        self.claimedBy = claimedBy
        self.claimedUntil = claimedUntil
        self.finishedAt = finishedAt
        self.lastError = lastError
    }
}
