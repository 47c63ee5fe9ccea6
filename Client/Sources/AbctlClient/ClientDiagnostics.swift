import ExperimentDefinitions
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
    /// Answers of 401 (no key, or one the server does not know) and 403 (a key without the scope).
    public var authFailures = 0
    /// The latest of them, with the scope the key lacks.
    public var lastAuthFailure: AuthFailure?
    /// The server's clock minus the device's, in seconds, from the last answer's `Date` header.
    public var clockOffsetSeconds: Double?
    /// Event timestamps more than 10 minutes ahead of the server's clock, moved back by that offset.
    public var timestampsCorrected = 0

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
            ("auth_failures", .number(Double(authFailures))),
            ("last_auth_failure", lastAuthFailure?.json ?? .null),
            ("clock_offset_s", clockOffsetSeconds.map(JSONValue.number) ?? .null),
            ("timestamps_corrected", .number(Double(timestampsCorrected))),
        ])
    }
}

/// A call the server refused for the key: 401 (no key, or an unknown one) or 403 (a key without
/// the scope the route needs). Retrying cannot mend it; a new key (or the server's keys file) can.
public struct AuthFailure: Sendable, Equatable, CustomStringConvertible {
    public var status: Int
    /// `v1/assign` or `v1/events`.
    public var path: String
    /// The scope the call needed and the key lacks: the one the server's 403 names, else the
    /// route's (`assign` or `ingest`; `app` for an app key).
    public var missingScope: String
    /// The server's error code and message.
    public var message: String
    public var at: Date

    public init(status: Int, path: String, missingScope: String, message: String, at: Date) {
        self.status = status
        self.path = path
        self.missingScope = missingScope
        self.message = message
        self.at = at
    }

    public var description: String {
        let what = status == 401 ? "the server does not accept this key (401)" : "this key lacks the '\(missingScope)' scope (403)"
        return "POST /\(path): \(what), needed scope '\(missingScope)': \(message)"
    }

    var json: JSONValue {
        .object([
            ("status", .number(Double(status))), ("path", .string(path)), ("missing_scope", .string(missingScope)),
            ("message", .string(message)), ("at", .string(RFC3339.format(at))),
        ])
    }

    /// The failure an answer of 401 or 403 stands for; nil for other statuses. `routeScope` is the
    /// scope the route needs of this client's key.
    static func from(status: Int, body: [UInt8], path: String, routeScope: String, at: Date) -> AuthFailure? {
        guard status == 401 || status == 403 else { return nil }
        let error = (try? JSONValue.parse(body))?["error"]
        let code = error?["code"]?.string, message = error?["message"]?.string ?? ""
        var scope = routeScope
        if code == "app_scope" {
            // An app key posted something other than exposures: that needs `ingest`.
            scope = "ingest"
        } else if let range = message.range(of: "lacks the '"), let end = message[range.upperBound...].firstIndex(of: "'") {
            scope = String(message[range.upperBound..<end])
        }
        return AuthFailure(status: status, path: path, missingScope: scope,
                           message: [code, message.isEmpty ? nil : message].compactMap { $0 }.joined(separator: ": "), at: at)
    }
}
