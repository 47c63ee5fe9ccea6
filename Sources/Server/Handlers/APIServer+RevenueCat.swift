import Events
import ExperimentDefinitions

extension APIServer {
    /// `POST /v1/webhooks/revenuecat`: one RevenueCat webhook event, mapped by `RevenueCatMapping`.
    ///
    /// The `Authorization` header must equal `ABCTL_REVENUECAT_AUTH` (compared in constant time).
    /// Without that setting the webhook is open only when the whole server is (no API keys,
    /// loopback). Answers 200 with `stored`, `duplicate` or `ignored` once durable.
    func revenueCat(_ request: HTTPRequest) throws -> HandlerOutcome {
        if let expected = options.revenueCatAuthorization {
            guard let given = request.authorization, APIKeys.constantTimeEquals(Array(given.utf8), Array(expected.utf8)) else {
                throw APIError(.unauthorized, code: "unauthorized", "the Authorization header does not match the one configured for RevenueCat")
            }
        } else if !options.keys.isEmpty {
            throw APIError(.unauthorized, code: "unauthorized", "the RevenueCat webhook is not configured on this server (ABCTL_REVENUECAT_AUTH)")
        }
        let body = try JSONBody(request.body)
        switch try RevenueCatMapping.map(body) {
        case .ignored(let type):
            metrics.webhook(type: type, outcome: .ignored)
            return .response(.json(.object([("status", .string("ignored")), ("type", .string(type))])))
        case .event(let mapped):
            guard let type = EventType(name: mapped.type) else {
                throw APIError(.unprocessable, code: "invalid_webhook_event", "cannot map to '\(mapped.type)'", field: "event.type")
            }
            let event = Event(id: mapped.eventID, type: type, userID: mapped.userID,
                              timestamp: Timestamp(microseconds: mapped.timestampMilliseconds * 1000),
                              revenue: mapped.revenue, currency: mapped.currency, productID: mapped.productID)
            if let rejection = snapshots.snapshot.eventParser.validate(event) {
                throw APIError(.unprocessable, code: "invalid_webhook_event", "\(rejection.field): \(rejection.reason)", field: "event.\(rejection.field)")
            }
            let store = backend.store
            let metrics = self.metrics
            return .deferred { respond in
                store.submit([event]) { result in
                    switch result {
                    case .success(let counts):
                        metrics.events(stored: counts.stored, duplicate: counts.duplicates, rejected: 0)
                        metrics.webhook(type: mapped.type, outcome: counts.stored == 1 ? .mapped : .duplicate)
                        respond(.json(.object([("status", .string(counts.stored == 1 ? "stored" : "duplicate")),
                                               ("type", .string(mapped.type)), ("event_id", .string(mapped.eventID))])))
                    case .failure(let error):
                        respond(Self.storeUnavailable(error, route: "/v1/webhooks/revenuecat"))
                    }
                }
            }
        }
    }
}
