import Events
import ExperimentDefinitions
import HTTPTransport

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
        let body = try JSONBody(request.body)
        guard case .string(let signedPayload)? = body["signedPayload"] else {
            throw APIError.badRequest("missing_field", "'signedPayload' (a JWS string) is required", field: "signedPayload")
        }
        let payload = try Self.verified(signedPayload, appStore, field: "signedPayload")
        var data: [(String, JSONValue)] = []
        if case .object(let members)? = AppStoreMapping.member(payload, "data") { data = members }
        // Apple's library reads the bundle id from data, else summary, else appData.
        var bundle: JSONValue?
        for key in ["data", "summary", "appData"] {
            if case .object(let members)? = AppStoreMapping.member(payload, key) { bundle = AppStoreMapping.member(members, "bundleId"); break }
        }
        guard case .string(appStore.bundleID)? = bundle else {
            throw APIError(.unauthorized, code: "wrong_bundle_id", "the notification is not for bundle id '\(appStore.bundleID)'", field: "data.bundleId")
        }
        var transaction: [(String, JSONValue)]?
        if let nested = AppStoreMapping.member(data, "signedTransactionInfo") {
            guard case .string(let jws) = nested else { throw APIError.badRequest("invalid_field", "'data.signedTransactionInfo' must be a JWS string", field: "data.signedTransactionInfo") }
            let decoded = try Self.verified(jws, appStore, field: "data.signedTransactionInfo")
            guard case .string(appStore.bundleID)? = AppStoreMapping.member(decoded, "bundleId") else {
                throw APIError(.unauthorized, code: "wrong_bundle_id", "the transaction is not for bundle id '\(appStore.bundleID)'", field: "data.signedTransactionInfo")
            }
            transaction = decoded
        }
        if let nested = AppStoreMapping.member(data, "signedRenewalInfo") {
            guard case .string(let jws) = nested else { throw APIError.badRequest("invalid_field", "'data.signedRenewalInfo' must be a JWS string", field: "data.signedRenewalInfo") }
            _ = try Self.verified(jws, appStore, field: "data.signedRenewalInfo")
        }

        switch try AppStoreMapping.map(payload: payload, transaction: transaction, trialAwaitingConversion: lookups.trialAwaitingConversion,
                                       userForStoreAccount: { [lookups] in try lookups.userForStoreAccount($0).map { UserID($0) } }) {
        case .ignored(let type):
            metrics.appStore(type: type, outcome: .ignored)
            return .response(.json(.object([("status", .string("ignored")), ("type", .string(type))])))
        case .event(let mapped):
            return try events.store(mapped, fieldPrefix: "", route: "/v1/webhooks/appstore") { [metrics] in
                metrics.appStore(type: $0, outcome: $1)
            }
        }
    }

    /// A verified JWS payload, or the error: 400 when it is not a JWS of JSON, 401 when Apple did not sign it.
    private static func verified(_ jws: String, _ appStore: AppStoreOptions, field: String) throws(APIError) -> [(String, JSONValue)] {
        do {
            return try appStore.verifier.verify(jws)
        } catch {
            switch error {
            case .malformed(let message): throw APIError.badRequest("malformed_jws", "\(field): \(message)", field: field)
            case .unverified(let message): throw APIError(.unauthorized, code: "invalid_signature", "\(field): \(message)", field: field)
            }
        }
    }
}
