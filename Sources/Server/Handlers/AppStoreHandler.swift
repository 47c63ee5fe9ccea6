import Events
import ExperimentDefinitions
import HTTPTransport
import Webhooks

/// `POST /v1/webhooks/appstore`.
struct AppStoreHandler: Responder {
    /// nil: the route answers 404.
    let options: AppStoreOptions?
    let lookups: StoreLookups
    let events: WebhookEventWriter
    let metrics: Metrics

    /// `POST /v1/webhooks/appstore`: one App Store Server Notification V2 (`{"signedPayload": JWS}`).
    ///
    /// The notification and its nested `signedTransactionInfo` and `signedRenewalInfo` are
    /// verified (`AppStoreJWSVerifier`) and the bundle id checked before anything is mapped
    /// (`AppStoreMapping`) or stored: a bad signature or chain, or another app's bundle id, is 401;
    /// a body that is not a notification is 400. Answers 200 with `stored`, `duplicate` or
    /// `ignored` once durable.
    func respond(to request: APIRequest) throws -> HandlerOutcome {
        guard let appStore = options else {
            throw APIError(.notFound, code: "not_found", "the App Store webhook is not configured on this server (--appstore-root-ca, --appstore-bundle-id)")
        }
        let notification: (payload: [(String, JSONValue)], transaction: [(String, JSONValue)]?, renewal: [(String, JSONValue)]?)
        do throws(WebhookError) {
            notification = try AppStoreNotification.verified(request.body, verifier: appStore.verifier, bundleID: appStore.bundleID)
        } catch {
            throw APIError(webhook: error)
        }
        let route = "/v1/webhooks/appstore"
        // Sandbox notifications (TestFlight, review) stay out of production data, and the other way round.
        if case .object(let data)? = notification.payload.last(where: { $0.0 == "data" })?.1,
           case .string(let environment)? = data.last(where: { $0.0 == "environment" })?.1, environment != appStore.environment {
            let type = notification.payload.last(where: { $0.0 == "notificationType" }).flatMap { if case .string(let t) = $0.1 { t } else { nil } } ?? "unknown"
            metrics.appStore(type: type, outcome: .ignored)
            events.log.write(level: .warning, "App Store notification ignored", ["route": .string(route), "reason": .string("environment"),
                                                                                "environment": .string(environment)])
            return .response(.json(.object([("status", .string("ignored")), ("type", .string(type)), ("reason", .string("environment")),
                                            ("message", .string("a \(environment) notification; this server stores \(appStore.environment) ones (--appstore-environment)"))])))
        }
        let count: @Sendable (String, Metrics.WebhookOutcome) -> Void = { [metrics] in metrics.appStore(type: $0, outcome: $1) }
        // Apple's retry answers the type first stored (mapped again, a first renewal would read as `renewed`).
        let delivery = DeliveryKey.appStore(payload: notification.payload)
        if let answer = try events.redelivery(delivery, route: route, count: count) { return answer }
        let outcome: WebhookOutcome
        do {
            outcome = try AppStoreMapping.map(payload: notification.payload, transaction: notification.transaction, renewal: notification.renewal,
                                              trialAwaitingConversion: lookups.trialAwaitingConversion,
                                              userForStoreAccount: { [lookups] in try lookups.userForStoreAccount($0).map { UserID($0) } })
        } catch {
            throw WebhookEventWriter.apiError(error, route: route, log: events.log)
        }
        return try events.store(outcome, route: route, delivery: delivery, count: count)
    }
}
