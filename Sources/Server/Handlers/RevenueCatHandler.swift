import Events
import ExperimentDefinitions
import HTTPTransport
import Webhooks

/// `POST /v1/webhooks/revenuecat`.
struct RevenueCatHandler: Responder {
    /// The exact `Authorization` header RevenueCat sends; nil when not configured.
    let authorization: String?
    let serverHasKeys: Bool
    let events: WebhookEventWriter
    let metrics: Metrics

    /// `POST /v1/webhooks/revenuecat`: one RevenueCat webhook event, mapped by `RevenueCatMapping`.
    ///
    /// The `Authorization` header must equal `ABCTL_REVENUECAT_AUTH` (compared in constant time).
    /// Without that setting the webhook is open only when the whole server is (no API keys,
    /// loopback). Answers 200 with `stored`, `duplicate` or `ignored` once durable.
    func respond(to request: APIRequest) throws -> HandlerOutcome {
        if let expected = authorization {
            guard let given = request.http.authorization, APIKeys.constantTimeEquals(Array(given.utf8), Array(expected.utf8)) else {
                throw APIError(.unauthorized, code: "unauthorized", "the Authorization header does not match the one configured for RevenueCat")
            }
        } else if serverHasKeys {
            throw APIError(.unauthorized, code: "unauthorized", "the RevenueCat webhook is not configured on this server (ABCTL_REVENUECAT_AUTH)")
        }
        let route = "/v1/webhooks/revenuecat"
        let outcome: WebhookOutcome
        do throws(WebhookError) {
            outcome = try RevenueCatMapping.map(request.body)
        } catch {
            throw APIError(webhook: error)
        }
        return try events.store(outcome, route: route, bodyField: RevenueCatMapping.bodyField) { [metrics] in metrics.webhook(type: $0, outcome: $1) }
    }
}
