import Dispatch
import Events
import ExperimentDefinitions
import HTTPTransport
import Webhooks

extension APIServer {
    /// Stores one event a webhook mapped (RevenueCat, App Store, Stripe, Google Play) and answers
    /// `stored` or `duplicate` once it is durable, or 503 when the store cannot take it.
    ///
    /// `fieldPrefix` is put before the event field an invalid event is blamed on; `count` records
    /// the outcome in the webhook's own metric. `after` runs once the event is durable (stored or
    /// a duplicate, so a retry redoes it) and before the answer; when it fails the answer is 503.
    func storeWebhookEvent(_ mapped: MappedEvent, fieldPrefix: String, route: String,
                           count: @escaping @Sendable (String, Metrics.WebhookOutcome) -> Void,
                           after: (@Sendable () throws -> Void)? = nil) throws -> HandlerOutcome {
        let type = mapped.type
        let mappedEvent = Event(id: mapped.eventID, type: type, userID: mapped.userID,
                                timestamp: Timestamp(microseconds: mapped.timestampMilliseconds * 1000),
                                revenue: mapped.revenue, currency: mapped.currency, productID: mapped.productID,
                                trialDays: type == .trialStarted ? mapped.trialDays : nil)
        // Checked and converted into the report currency as `/v1/events` does; a currency with no rate is 422, nothing stored.
        let event: Event
        switch snapshots.snapshot.eventParser.check(mappedEvent) {
        case .success(let checked): event = checked
        case .failure(let rejection):
            throw APIError(.unprocessable, code: "invalid_webhook_event", "\(rejection.field): \(rejection.reason)", field: fieldPrefix + rejection.field)
        }
        let store = backend.store
        let metrics = self.metrics
        return .deferred { respond in
            store.submit([event]) { result in
                switch result {
                case .success(let counts):
                    let answer = { @Sendable in
                        metrics.events(stored: counts.stored, duplicate: counts.duplicates, rejected: 0)
                        count(mapped.type.name, counts.stored == 1 ? .mapped : .duplicate)
                        respond(.json(.object([("status", .string(counts.stored == 1 ? "stored" : "duplicate")),
                                               ("type", .string(mapped.type.name)), ("event_id", .string(mapped.eventID.text))])))
                    }
                    guard let after else { return answer() }
                    // Completions run on the store's writer; a second write must not wait on it.
                    DispatchQueue.global().async {
                        do {
                            try after()
                            answer()
                        } catch {
                            respond(Self.storeUnavailable(error, route: route))
                        }
                    }
                case .failure(let error):
                    respond(Self.storeUnavailable(error, route: route))
                }
            }
        }
    }
}
