import Events
import ExperimentDefinitions
import Foundation
import HTTPTransport

/// `POST /v1/identify`.
struct IdentifyHandler: Responder {
    let log: Log
    let snapshots: SnapshotHolder
    let store: any EventStore
    let metrics: Metrics
    /// The node's clock (`ABCTL_NOW` where set); nil: the time of the request.
    let clock: Date?

    /// `POST /v1/identify`: body `{"user_id", "identity", "ts"?}`, stored as an `identified` event
    /// with `event_id` `identify:IDENTITY` (so sending it again is a duplicate), `ts`
    /// the node's clock when absent. 200 only after it is durable; the same checks as
    /// `/v1/events` (an `app` key's may be at most 7 days old).
    func respond(to request: APIRequest) throws -> HandlerOutcome {
        let body = try JSONBody(request.body)
        try body.only(["user_id", "identity", "ts"])
        let userID = try body.string("user_id")
        let identity = try body.string("identity")
        let now = Timestamp(clock ?? Date())
        var ts = now
        if let text = try body.optionalString("ts") {
            guard let parsed = Timestamp(rfc3339: text) else {
                throw APIError.badRequest("invalid_field", "'ts' is not an RFC 3339 timestamp: '\(text.prefix(40))'", field: "ts")
            }
            ts = parsed
        }
        let event = Event(id: EventID("identify:" + identity), type: .identified, userID: UserID(userID), timestamp: ts,
                          identity: UserID(identity))
        let parser = snapshots.snapshot.eventParser.receiving(at: now, appKey: request.viaAppScope)
        if let rejection = parser.validate(event) {
            metrics.events(stored: 0, duplicate: 0, rejected: 1)
            // The event_id is built from the identity: its length problem is the identity's.
            let field = rejection.field == "event_id" ? "identity" : rejection.field
            throw APIError(.badRequest, code: "invalid_field", "\(field): \(rejection.reason)", field: field)
        }
        let store = self.store, metrics = self.metrics
        return .deferred { respond in
            store.submit([event]) { result in
                switch result {
                case .success(let counts):
                    metrics.events(stored: counts.stored, duplicate: counts.duplicates, rejected: 0)
                    respond(.json(.object([("user_id", .string(userID)), ("identity", .string(identity)),
                                           ("stored", .number(Double(counts.stored))), ("duplicate", .number(Double(counts.duplicates)))])))
                case .failure(let error):
                    respond(WebhookEventWriter.storeUnavailable(error, route: "/v1/identify", log: log))
                }
            }
        }
    }
}
