import Events
import ExperimentDefinitions
import Foundation
import HTTPTransport
import Webhooks

/// `POST /v1/webhooks/stripe`.
struct StripeHandler: Responder {
    /// nil: the route answers 404.
    let options: StripeOptions?
    let lookups: StoreLookups
    let events: WebhookEventWriter
    let metrics: Metrics

    /// `POST /v1/webhooks/stripe`: one Stripe event.
    ///
    /// The `Stripe-Signature` header is checked first (`StripeSignature`): anything that does
    /// not verify is 401 and nothing is read further. A verified event is mapped by
    /// `StripeMapping`; events with no `abctl_user_id` answer 200 `ignored` and are counted.
    /// A paid invoice's charge and payment intent are kept in the store's payment ledger after
    /// the event is durable, so a later `charge.refunded` finds the user.
    func respond(to request: APIRequest) throws -> HandlerOutcome {
        guard let stripe = options else {
            throw APIError(.notFound, code: "not_found", "the Stripe webhook is not configured on this server (--stripe-secret or ABCTL_STRIPE_SECRETS)")
        }
        let route = "/v1/webhooks/stripe"
        let count: @Sendable (String, Metrics.WebhookOutcome) -> Void = { [metrics] in metrics.stripe(type: $0, outcome: $1) }
        let outcome: WebhookOutcome
        let delivery: DeliveryKey?
        do {
            try stripe.signature.verify(header: request.http.header("Stripe-Signature"), body: request.body, now: Date().timeIntervalSince1970)
            // A replay answers the type first stored: mapped again, a paid invoice would read as a renewal
            // once its trial has converted, and a refund as already counted.
            delivery = DeliveryKey.stripe(request.body)
            if let answer = try events.redelivery(delivery, route: route, count: count) { return answer }
            outcome = try StripeMapping.map(request.body, lookups: (trialAwaitingConversion: lookups.trialAwaitingConversion, payment: lookups.payment))
        } catch let error as WebhookError {
            throw APIError(webhook: error)
        } catch let error as APIError {
            throw error
        } catch {
            throw WebhookEventWriter.storeUnavailableError(error, route: route, log: events.log)
        }
        return try events.store(outcome, route: route, delivery: delivery, count: count)
    }
}
