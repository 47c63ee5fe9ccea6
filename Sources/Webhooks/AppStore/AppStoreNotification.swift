import ExperimentDefinitions

/// One App Store Server Notification V2 body (`{"signedPayload": JWS}`), verified before anything
/// is read from it: the notification and its nested `signedTransactionInfo` and
/// `signedRenewalInfo` by `AppStoreJWSVerifier`, and the bundle id. A body that is not a
/// notification is `malformed` (400); a bad signature or chain, or another app's bundle id,
/// `unverified` (401).
public enum AppStoreNotification {
    /// The verified notification and its verified transaction and renewal info, where it has them.
    public static func verified(_ body: [UInt8], verifier: AppStoreJWSVerifier, bundleID: String) throws(WebhookError)
        -> (payload: [(String, JSONValue)], transaction: [(String, JSONValue)]?, renewal: [(String, JSONValue)]?) {
        let object = try WebhookBody.object(body)
        guard case .string(let signedPayload)? = WebhookBody.member(object, "signedPayload") else {
            throw WebhookError(.malformed, code: "missing_field", "'signedPayload' (a JWS string) is required", field: "signedPayload")
        }
        let payload = try verify(signedPayload, verifier, field: "signedPayload")
        var data: [(String, JSONValue)] = []
        if case .object(let members)? = WebhookBody.member(payload, "data") { data = members }
        // Apple's library reads the bundle id from data, else summary, else appData.
        var bundle: JSONValue?
        for key in ["data", "summary", "appData"] {
            if case .object(let members)? = WebhookBody.member(payload, key) { bundle = WebhookBody.member(members, "bundleId"); break }
        }
        guard case .string(bundleID)? = bundle else {
            throw WebhookError(.unverified, code: "wrong_bundle_id", "the notification is not for bundle id '\(bundleID)'", field: "data.bundleId")
        }
        var transaction: [(String, JSONValue)]?
        if let nested = WebhookBody.member(data, "signedTransactionInfo") {
            let decoded = try verify(nested, verifier, field: "data.signedTransactionInfo")
            guard case .string(bundleID)? = WebhookBody.member(decoded, "bundleId") else {
                throw WebhookError(.unverified, code: "wrong_bundle_id", "the transaction is not for bundle id '\(bundleID)'", field: "data.signedTransactionInfo")
            }
            transaction = decoded
        }
        var renewal: [(String, JSONValue)]?
        if let nested = WebhookBody.member(data, "signedRenewalInfo") {
            renewal = try verify(nested, verifier, field: "data.signedRenewalInfo")
        }
        return (payload, transaction, renewal)
    }

    private static func verify(_ value: JSONValue, _ verifier: AppStoreJWSVerifier, field: String) throws(WebhookError) -> [(String, JSONValue)] {
        guard case .string(let jws) = value else {
            throw WebhookError(.malformed, code: "invalid_field", "'\(field)' must be a JWS string", field: field)
        }
        return try verify(jws, verifier, field: field)
    }

    /// A verified JWS payload, or the error: malformed when it is not a JWS of JSON, unverified when Apple did not sign it.
    private static func verify(_ jws: String, _ verifier: AppStoreJWSVerifier, field: String) throws(WebhookError) -> [(String, JSONValue)] {
        do {
            return try verifier.verify(jws)
        } catch {
            switch error {
            case .malformed(let message): throw WebhookError(.malformed, code: "malformed_jws", "\(field): \(message)", field: field)
            case .unverified(let message): throw WebhookError(.unverified, code: "invalid_signature", "\(field): \(message)", field: field)
            }
        }
    }
}
