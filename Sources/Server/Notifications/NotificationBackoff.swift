import Events

/// When a notification is tried again: 1 s after the first failure, doubling up to 10 minutes,
/// for 24 hours from its record; a 2xx ends it, and so does a 4xx other than 408 and 429 (as failed).
public struct NotificationBackoff: Sendable, Equatable {
    public var firstSeconds: Double
    public var maxSeconds: Double
    public var windowSeconds: Double

    public init(firstSeconds: Double = 1, maxSeconds: Double = 600, windowSeconds: Double = 86_400) {
        self.firstSeconds = firstSeconds
        self.maxSeconds = maxSeconds
        self.windowSeconds = windowSeconds
    }

    /// The wait after the `attempts`-th failed try (1: the first).
    public func wait(afterAttempts attempts: Int) -> Double {
        min(maxSeconds, firstSeconds * Double(1 << min(max(attempts - 1, 0), 40)))
    }

    /// What a try that got `status` (0: no answer) comes to, `attempts` tries made with it, for a
    /// notification recorded at `recordedAt`, at `now`.
    public func outcome(status: Int, error: String, attempts: Int, recordedAt: Timestamp, now: Timestamp) -> OutboxTryOutcome {
        if (200..<300).contains(status) { return .delivered(at: now) }
        if (400..<500).contains(status) && status != 408 && status != 429 { return .failed(at: now, error: error) }
        let next = Timestamp(microseconds: now.microseconds + Int64(wait(afterAttempts: attempts) * 1_000_000))
        if next.microseconds > recordedAt.microseconds + Int64(windowSeconds * 1_000_000) {
            return .failed(at: now, error: error + " (retried for \(Int(windowSeconds / 3600)) hours)")
        }
        return .retry(next: next, error: error)
    }
}
