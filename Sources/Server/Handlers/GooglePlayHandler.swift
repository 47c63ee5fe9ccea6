import Dispatch
import Events
import ExperimentDefinitions
import Foundation
import HTTPTransport
import Webhooks

/// `POST /v1/webhooks/googleplay`.
struct GooglePlayHandler: Responder {
    /// nil: the route answers 404.
    let options: GooglePlayOptions?
    let lookups: StoreLookups
    let events: WebhookEventWriter
    let metrics: Metrics

    /// `POST /v1/webhooks/googleplay`: one Pub/Sub push of a Google Play real-time developer notification.
    ///
    /// The push's OIDC token is verified first (`GooglePushVerifier`, 401), then the package
    /// (401). A subscription notification's purchase is read with `purchases.subscriptionsv2.get`
    /// on a thread of its own (a failed or slow lookup answers 503, so Pub/Sub retries, and never
    /// holds a server thread); the event is stored and its payment kept for a later voided purchase.
    /// A redelivered message (its `messageId` stored before) is answered as a duplicate of the type
    /// first stored, without calling the Play API.
    func respond(to request: APIRequest) throws -> HandlerOutcome {
        guard let play = options else {
            throw APIError(.notFound, code: "not_found", "the Google Play webhook is not configured on this server (--google-certs, --googleplay-audience, --googleplay-push-account, --googleplay-package, --googleplay-service-account)")
        }
        let route = "/v1/webhooks/googleplay"
        let count: @Sendable (String, Metrics.WebhookOutcome) -> Void = { [metrics] in metrics.googlePlay(type: $0, outcome: $1) }
        let notification: GooglePlayMapping.Notification
        do {
            let now = Int64(Date().timeIntervalSince1970)
            try play.verifier.verify(authorization: request.http.authorization, now: now)
            notification = try GooglePlayMapping.parse(request.body, packageName: play.api.packageName)
        } catch where error.code == GooglePlayMapping.wrongPackageCode {
            // Verified, but another app's: Pub/Sub would retry a 401 for a week, and no retry can mend it.
            return try settled(.otherPackage, type: "notification", message: error.message, route: route, count: count)
        } catch {
            throw APIError(webhook: error)
        }
        let lookups: GooglePlayMapping.Lookups = (trialAwaitingConversion: self.lookups.trialAwaitingConversion,
                                                  payment: self.lookups.payment,
                                                  userForStoreAccount: self.lookups.userForStoreAccount)
        // A redelivery is answered from what was stored before the Play API is called again.
        let delivery = DeliveryKey.googlePlay(notification)
        if let answer = try events.redelivery(delivery, route: route, count: count) { return answer }
        guard notification.needsPurchase else {
            return try mapped(notification, purchase: nil, lookups: lookups, route: route, count: count)
        }
        let api = play.api
        return .deferred { [self] respond in
            DispatchQueue.global().async {
                do {
                    guard case .subscription(_, let token) = notification.kind else { return }
                    let purchase = try api.subscription(purchaseToken: token, now: Int64(Date().timeIntervalSince1970))
                    switch try self.mapped(notification, purchase: purchase, lookups: lookups, route: route, count: count) {
                    case .response(let response): respond(response)
                    case .deferred(let start): start(respond)
                    }
                } catch let failure as WebhookError where failure.code == GooglePlayAPI.unknownTokenCode {
                    do {
                        switch try self.settled(.unknownToken, type: "subscriptionNotification", message: failure.message, route: route, count: count) {
                        case .response(let response): respond(response)
                        case .deferred(let start): start(respond)
                        }
                    } catch {
                        respond(ErrorResponses.response(for: WebhookEventWriter.apiError(error, route: route, log: events.log), route: route, log: events.log))
                    }
                } catch {
                    if let failure = error as? WebhookError, failure.kind == .unavailable {
                        events.log.write(level: .warning, "Google Play lookup failed", ["route": .string(route), "error": .string(failure.message)])
                    }
                    respond(ErrorResponses.response(for: WebhookEventWriter.apiError(error, route: route, log: events.log), route: route, log: events.log))
                }
            }
        }
    }

    /// A notification that can never succeed: answered 200 ignored with its reason, counted in
    /// /metrics and logged, nothing stored.
    private func settled(_ reason: IgnoredReason, type: String, message: String, route: String,
                         count: @escaping @Sendable (String, Metrics.WebhookOutcome) -> Void) throws -> HandlerOutcome {
        events.log.write(level: .warning, "Google Play notification ignored", ["route": .string(route), "reason": .string(reason.rawValue),
                                                                              "message": .string(message)])
        return try events.store(.ignored(type: type, reason: reason), route: route, count: count)
    }

    private func mapped(_ notification: GooglePlayMapping.Notification, purchase: [(String, JSONValue)]?,
                        lookups: GooglePlayMapping.Lookups, route: String,
                        count: @escaping @Sendable (String, Metrics.WebhookOutcome) -> Void) throws -> HandlerOutcome {
        let outcome: WebhookOutcome
        do {
            outcome = try GooglePlayMapping.map(notification, purchase: purchase, lookups: lookups)
        } catch {
            throw WebhookEventWriter.apiError(error, route: route, log: events.log)
        }
        return try events.store(outcome, route: route, delivery: DeliveryKey.googlePlay(notification), count: count)
    }
}
