/// One end of a subscription as the stores told it, with the time it stopped being one: a cancel
/// that an `uncancelled` undid in time ends the subscription only from `at` until `undoneAt`; a
/// cancel that stood, or an expiry, has no `undoneAt`. Facts keep these so that a report as of any
/// moment reads the ends as they stood then, not as they stand now.
public struct EndSpan: Sendable, Hashable {
    /// When the end happened (µs).
    public var at: Int64
    /// When it was undone (µs), nil when it never was.
    public var undoneAt: Int64?

    public init(at: Int64, undoneAt: Int64? = nil) {
        self.at = at
        self.undoneAt = undoneAt
    }

    /// Whether the end stood as of `limit` (µs, exclusive: events before it counted).
    @inlinable
    public func stands(before limit: Int64) -> Bool {
        at < limit && (undoneAt.map { $0 >= limit } ?? true)
    }

    /// The stores' text for a list of spans, `at:undoneAt` or `at`, comma-separated; nil for none (a
    /// column left NULL, so the usual row costs nothing to read).
    public static func encode(_ spans: [EndSpan]) -> String? {
        guard !spans.isEmpty else { return nil }
        return spans.map { s in s.undoneAt.map { "\(s.at):\($0)" } ?? "\(s.at)" }.joined(separator: ",")
    }

    /// The spans of `encode`'s text; an empty list for nil.
    public static func decode(_ text: String?) -> [EndSpan] {
        guard let text, !text.isEmpty else { return [] }
        return text.split(separator: ",").compactMap { part in
            let fields = part.split(separator: ":")
            guard let at = fields.first.flatMap({ Int64($0) }) else { return nil }
            return EndSpan(at: at, undoneAt: fields.count > 1 ? Int64(fields[1]) : nil)
        }
    }
}

/// The one reading of a subscription's first cancel as of a moment, shared by the report's rows
/// (`UserFacts`) and the safeguards' (`FactTimes`): both cancel rates and the end of survival.
public protocol CancelHistory {
    /// The first subscription's cancel that stands now (µs), nil when none does.
    var standingCancel: Int64? { get }
    /// The first subscription's cancels that an `uncancelled` undid in time, in time order, all
    /// before `standingCancel`.
    var undoneCancels: [EndSpan] { get }
}

extension CancelHistory {
    /// The cancel that stood as of `limit` (µs, exclusive): the one standing now if it came before,
    /// else one that was later undone but not yet by then.
    @inlinable
    public func cancel(before limit: Int64) -> Int64? {
        if let c = standingCancel, c < limit { return c }
        for span in undoneCancels where span.stands(before: limit) { return span.at }
        return nil
    }

    /// A cancel within `window` (µs, inclusive) of `trialStart` that no `uncancelled` undid within
    /// the window, counting only what happened before `limit`: the `day0_cancel_rate` numerator.
    @inlinable
    public func day0Cancel(trialStart: Int64, window: Int64, before limit: Int64) -> Int64? {
        guard let c = cancel(before: min(limit, trialStart + window + 1)), c >= trialStart else { return nil }
        return c
    }

    /// A cancel before a trial of `length` (µs) from `trialStart` ended that no `uncancelled` undid
    /// before it ended, counting only what happened before `limit`: the `trial_cancel_rate` numerator.
    /// A trial of length 0 (not known) has none.
    @inlinable
    public func trialCancel(trialStart: Int64, length: Int64, before limit: Int64) -> Int64? {
        guard let c = cancel(before: min(limit, trialStart + length)), c >= trialStart else { return nil }
        return c
    }
}

public enum TrialLength {
    /// The length of a user's own trial (µs): the days the store granted where the trial start said,
    /// else the arm's (`armLength`, µs); 0 when neither tells (an arm that offers no trial cannot say
    /// how long a trial started elsewhere ran). One rule for the report and the safeguards.
    @inlinable
    public static func own(grantedDays: Int?, armLength: Int64) -> Int64 {
        grantedDays.map { Int64($0) * 86_400_000_000 } ?? armLength
    }
}
