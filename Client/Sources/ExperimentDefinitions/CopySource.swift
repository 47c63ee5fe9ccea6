/// Where the line a user saw came from; exposures carry it as `copy_source`.
///
/// Shared by paywall resolution, the event store and reports, so it lives with the file format.
public enum CopySource: String, Sendable, CaseIterable, CustomStringConvertible {
    case `static`
    case template
    case onDevice = "on_device"
    case server
    case fallback

    public var description: String { rawValue }
}

/// Why an AI arm showed its fallback line instead of a generated one.
public enum FallbackReason: String, Sendable, CaseIterable {
    /// No brief rule matched the user's signals, so there was nothing personal to say.
    case emptyBrief = "empty_brief"
    case noModel = "no_model"
    case guardRejected = "guard_rejected"
    case timeout
    case emptyAnswer = "empty_answer"
    case error
}
