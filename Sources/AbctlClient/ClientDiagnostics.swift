import Foundation

/// What the client has done since it started, for the app to show or send.
public struct ClientDiagnostics: Sendable, Equatable {
    /// `paywall(for:)` answers by where they came from.
    public var answersBySource: [PaywallSource: Int] = [:]
    /// Answers that did not come from the server's assignment, by why (timeouts, unreachable, …).
    public var paywallFallbacks: [AnswerReason.Code: Int] = [:]
    /// AI lines written on the device that passed the guard.
    public var copyGenerated = 0
    /// AI arms that showed their fallback line, by reason.
    public var copyFallbacks: [FallbackReason: Int] = [:]
    /// Events on disk waiting for the server.
    public var queueDepth = 0
    public var eventsQueued = 0
    public var eventsStored = 0
    public var eventsDuplicate = 0
    /// Events refused because the queue was full.
    public var eventsDroppedQueueFull = 0
    /// Events the server rejected as invalid, taken off the queue.
    public var eventsRejected = 0
    /// Sends to `POST /v1/events` that failed (and are retried with backoff).
    public var sendFailures = 0
    /// Events the server refused for the key's scope (403: an `app` key posting more than exposures,
    /// or a key without `ingest`), taken off the queue instead of retried forever.
    public var eventsRefused = 0
    /// Purchases refused at once because the key is an `app` key (they come from store webhooks).
    public var purchasesRefused = 0
    /// A torn last record cut off when the queue was opened (bytes), and whole records with a bad checksum.
    public var queueTornBytes = 0
    public var queueCorruptRecords = 0
    public var lastError: String?
    public var lastErrorAt: Date?

    /// The same as JSON, members in a fixed order, for logs or a support screen.
    public var json: JSONValue {
        func counts<K: RawRepresentable>(_ table: [K: Int]) -> JSONValue where K.RawValue == String {
            .object(table.map { ($0.key.rawValue, JSONValue.number(Double($0.value))) }.sorted { $0.0 < $1.0 })
        }
        return .object([
            ("answers_by_source", counts(answersBySource)),
            ("paywall_fallbacks", counts(paywallFallbacks)),
            ("copy_generated", .number(Double(copyGenerated))),
            ("copy_fallbacks", counts(copyFallbacks)),
            ("queue_depth", .number(Double(queueDepth))),
            ("events_queued", .number(Double(eventsQueued))),
            ("events_stored", .number(Double(eventsStored))),
            ("events_duplicate", .number(Double(eventsDuplicate))),
            ("events_dropped_queue_full", .number(Double(eventsDroppedQueueFull))),
            ("events_rejected", .number(Double(eventsRejected))),
            ("send_failures", .number(Double(sendFailures))),
            ("events_refused", .number(Double(eventsRefused))),
            ("purchases_refused", .number(Double(purchasesRefused))),
            ("queue_torn_bytes", .number(Double(queueTornBytes))),
            ("queue_corrupt_records", .number(Double(queueCorruptRecords))),
            ("last_error", lastError.map(JSONValue.string) ?? .null),
            ("last_error_at", lastErrorAt.map { .string(RFC3339.format($0)) } ?? .null),
        ])
    }
}
