import ExperimentDefinitions
import Webhooks

/// Maps one verified App Store Server Notification V2 onto a SPEC §4 event.
///
/// | notificationType (subtype) | SPEC §4 |
/// | --- | --- |
/// | `SUBSCRIBED` whose transaction has `offerDiscountType` `FREE_TRIAL` | `trial_started` |
/// | `SUBSCRIBED` otherwise | `purchased` |
/// | `DID_RENEW`, the user's trial not yet converted | `converted` |
/// | `DID_RENEW` otherwise | `renewed` |
/// | `DID_CHANGE_RENEWAL_STATUS` (`AUTO_RENEW_DISABLED`) | `cancelled` |
/// | `REFUND` | `refunded` (negative revenue) |
/// | anything else | ignored (accepted and counted) |
///
/// The user is the transaction's `appAccountToken` (the app sets it to its user id), `event_id`
/// the `notificationUUID` (Apple retries with the same one), `ts` the notification's
/// `signedDate`, revenue the transaction's `price` / 1000 in its `currency`. Whether a renewal
/// is the trial's conversion needs the user's history, which the caller answers
/// (`trialAwaitingConversion`, asked only for `DID_RENEW`). No I/O, no clock.
public enum AppStoreMapping {
    public typealias MappedEvent = RevenueCatMapping.MappedEvent
    public typealias Outcome = RevenueCatMapping.Outcome

    /// The SPEC §4 type a notification becomes, or nil when it is ignored; `trial` tells
    /// whether the transaction is a free trial, `renewalConverts` whether a renewal is the conversion.
    static func type(notification: String, subtype: String?, freeTrial: Bool, renewalConverts: () throws -> Bool) rethrows -> String? {
        switch notification {
        case "SUBSCRIBED": freeTrial ? "trial_started" : "purchased"
        case "DID_RENEW": try renewalConverts() ? "converted" : "renewed"
        case "DID_CHANGE_RENEWAL_STATUS": subtype == "AUTO_RENEW_DISABLED" ? "cancelled" : nil
        case "REFUND": "refunded"
        default: nil
        }
    }

    /// `payload`: the verified notification; `transaction`: its verified `signedTransactionInfo`.
    public static func map(payload: [(String, JSONValue)], transaction: [(String, JSONValue)]?,
                           trialAwaitingConversion: (UserID) throws -> Bool) throws -> Outcome {
        func invalid(_ field: String, _ message: String) -> APIError {
            APIError(.unprocessable, code: "invalid_webhook_event", message, field: field)
        }
        guard case .string(let notification)? = member(payload, "notificationType") else {
            throw APIError.badRequest("missing_field", "'notificationType' is required", field: "notificationType")
        }
        var subtype: String?
        if case .string(let s)? = member(payload, "subtype") { subtype = s }
        let freeTrial: Bool
        if let transaction, case .string("FREE_TRIAL")? = member(transaction, "offerDiscountType") { freeTrial = true } else { freeTrial = false }
        // The user is needed before the type (a renewal asks about the user's trial).
        var user: UserID?
        if let transaction, case .string(let token)? = member(transaction, "appAccountToken"), !token.isEmpty { user = UserID(token) }
        let mapped = try type(notification: notification, subtype: subtype, freeTrial: freeTrial) {
            guard let user else { return false }
            return try trialAwaitingConversion(user)
        }
        guard let mapped else { return .ignored(type: subtype.map { "\(notification).\($0)" } ?? notification) }
        guard let transaction else { throw invalid("data.signedTransactionInfo", "a \(notification) notification needs data.signedTransactionInfo") }
        guard let user else {
            throw invalid("appAccountToken", "the transaction has no appAccountToken; the app must set it to its user id at purchase")
        }
        guard case .string(let id)? = member(payload, "notificationUUID"), !id.isEmpty else {
            throw invalid("notificationUUID", "'notificationUUID' is required: it is the idempotency key")
        }
        guard case .number(let signed)? = member(payload, "signedDate"), signed.isFinite, signed >= 0, signed < 32_503_680_000_000 else {
            throw invalid("signedDate", "'signedDate' (milliseconds since 1970) is required")
        }
        var revenue: Double?
        var currency: String?
        if mapped != "trial_started" && mapped != "cancelled", case .number(let price)? = member(transaction, "price"), price.isFinite {
            revenue = (mapped == "refunded" ? -price : price) / 1000
            if case .string(let c)? = member(transaction, "currency") { currency = c }
        }
        var product: String?
        if case .string(let p)? = member(transaction, "productId") { product = p }
        return .event(MappedEvent(eventID: EventID(id), type: mapped, userID: user, timestampMilliseconds: Int64(signed),
                                  revenue: revenue, currency: currency, productID: product))
    }

    static func member(_ members: [(String, JSONValue)], _ key: String) -> JSONValue? {
        members.last { $0.0 == key }?.1
    }
}
