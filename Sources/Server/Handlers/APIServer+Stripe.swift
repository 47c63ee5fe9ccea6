import Events
import ExperimentDefinitions
import Foundation
import HTTPTransport
import Webhooks

extension APIServer {
    /// `POST /v1/webhooks/stripe`: one Stripe event (SPEC §7).
    ///
    /// The `Stripe-Signature` header is checked first (`StripeSignature`): anything that does
    /// not verify is 401 and nothing is read further. A verified event is mapped by
    /// `StripeMapping`; events with no `abctl_user_id` answer 200 `ignored` and are counted.
    /// A paid invoice's charge and payment intent are kept in the store's payment ledger after
    /// the event is durable, so a later `charge.refunded` finds the user.
    func stripe(_ request: HTTPRequest) throws -> HandlerOutcome {
        guard let stripe = options.stripe else {
            throw APIError(.notFound, code: "not_found", "the Stripe webhook is not configured on this server (--stripe-secret or ABCTL_STRIPE_SECRETS)")
        }
        let store = backend.store
        let outcome: WebhookOutcome
        do {
            try stripe.signature.verify(header: request.stripeSignature, body: request.body, now: Date().timeIntervalSince1970)
            let backend = self.backend
            outcome = try StripeMapping.map(request.body, lookups: (trialAwaitingConversion: { try backend.trialAwaitingConversion(userID: $0) },
                                                                    payment: { try store.payment(key: $0) }))
        } catch let error as WebhookError {
            throw APIError(webhook: error)
        } catch let error as APIError {
            throw error
        } catch {
            throw Self.storeUnavailableError(error, route: "/v1/webhooks/stripe")
        }
        return try storeWebhookOutcome(outcome, route: "/v1/webhooks/stripe") { [metrics] in metrics.stripe(type: $0, outcome: $1) }
    }

    /// Answers an ignored outcome at once, or stores the event, then keeps its ledger entry.
    func storeWebhookOutcome(_ outcome: WebhookOutcome, route: String,
                             count: @escaping @Sendable (String, Metrics.WebhookOutcome) -> Void) throws -> HandlerOutcome {
        switch outcome {
        case .ignored(let type, let reason):
            count(type, reason == .noUser ? .noUser : reason == .alreadyCounted ? .alreadyCounted : .ignored)
            var body: [(String, JSONValue)] = [("status", .string("ignored")), ("type", .string(type))]
            if reason != .type { body.append(("reason", .string(reason.rawValue))) }
            return .response(.json(.object(body)))
        case .event(let mapped, let remember):
            var after: (@Sendable () throws -> Void)?
            if let remember {
                let store: any EventStore = backend.store
                after = { try store.remember(remember.payment, keys: remember.keys) }
            }
            return try storeWebhookEvent(mapped, fieldPrefix: "", route: route, count: count, after: after)
        }
    }

    /// A store failure met before anything was stored: 503, so the vendor retries.
    static func storeUnavailableError(_ error: any Error, route: String) -> APIError {
        Log.shared.write(level: .error, "webhook lookup failed", ["route": .string(route), "error": .string(String(describing: error))])
        return APIError(.unavailable, code: "store_unavailable", "the store could not be read; nothing was stored (retry later)")
    }
}

extension APIError {
    /// The HTTP form of a webhook's refusal.
    init(webhook error: WebhookError) {
        let kind: APIError.Kind = switch error.kind {
        case .malformed: .badRequest
        case .unverified: .unauthorized
        case .unprocessable: .unprocessable
        case .unavailable: .unavailable
        }
        self.init(kind, code: error.code, error.message, field: error.field)
    }
}
