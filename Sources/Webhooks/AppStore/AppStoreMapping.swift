import Events
import ExperimentDefinitions

/// Maps one verified App Store Server Notification V2 onto an abctl event.
///
/// | notificationType (subtype) | event |
/// | --- | --- |
/// | `SUBSCRIBED` whose transaction has `offerDiscountType` `FREE_TRIAL` | `trial_started` |
/// | `SUBSCRIBED` otherwise | `purchased` |
/// | `DID_RENEW`, the user's trial not yet converted | `converted` |
/// | `DID_RENEW` otherwise | `renewed` |
/// | `DID_CHANGE_RENEWAL_STATUS` (`AUTO_RENEW_DISABLED`) | `cancelled` |
/// | `DID_CHANGE_RENEWAL_STATUS` (`AUTO_RENEW_ENABLED`) | `uncancelled` |
/// | `DID_FAIL_TO_RENEW` | `billing_issue` (`grace_until` the renewal info's `gracePeriodExpiresDate`) |
/// | `EXPIRED` (`VOLUNTARY`, `BILLING_RETRY`, `PRICE_INCREASE`, `PRODUCT_NOT_FOR_SALE`) | `expired` (voluntary, billing, price_increase, product_unavailable; other without a subtype) |
/// | `REVOKE` | `expired` (other) |
/// | `DID_CHANGE_RENEWAL_PREF` (`UPGRADE`) | `plan_changed` `now` to the transaction's product, and its charge a `renewed` |
/// | `DID_CHANGE_RENEWAL_PREF` (`DOWNGRADE`) | `plan_changed` `next_renewal` to the renewal info's `autoRenewProductId` |
/// | `DID_CHANGE_RENEWAL_PREF` (no subtype: a downgrade undone) | `plan_changed` `next_renewal` back to the transaction's product |
/// | `REFUND` | `refunded` (negative revenue) |
/// | anything else (`GRACE_PERIOD_EXPIRED`: the billing issue goes on; `TEST`, …) | ignored (accepted and counted) |
///
/// The user is the one whose exposure carried the transaction's `appAccountToken` as its
/// `store_account_id` (`userForStoreAccount`), else the token itself; `event_id`
/// the `notificationUUID` (Apple retries with the same one), `ts` the notification's
/// `signedDate`, revenue the transaction's `price` / 1000 in its `currency`. A trial start carries
/// `trial_days`, the trial Apple granted: the transaction's `offerPeriod` (an ISO 8601 duration),
/// else its `expiresDate` − `purchaseDate` in whole days. Whether a renewal
/// is the trial's conversion needs the user's history, which the caller answers
/// (`trialAwaitingConversion`, asked only for `DID_RENEW`). No I/O, no clock.
public enum AppStoreMapping {
    /// The event type a notification becomes, or nil when it is ignored; `trial` tells
    /// whether the transaction is a free trial, `renewalConverts` whether a renewal is the conversion.
    static func type(notification: String, subtype: String?, freeTrial: Bool, renewalConverts: () throws -> Bool) rethrows -> EventType? {
        switch notification {
        case "SUBSCRIBED": freeTrial ? .trialStarted : .purchased
        case "DID_RENEW": try renewalConverts() ? .converted : .renewed
        case "DID_CHANGE_RENEWAL_STATUS": subtype == "AUTO_RENEW_DISABLED" ? .cancelled : subtype == "AUTO_RENEW_ENABLED" ? .uncancelled : nil
        case "DID_FAIL_TO_RENEW": .billingIssue
        case "EXPIRED", "REVOKE": .expired
        case "DID_CHANGE_RENEWAL_PREF": .planChanged
        case "REFUND": .refunded
        default: nil
        }
    }

    /// Why an `EXPIRED` (by its subtype) or a `REVOKE` ended access.
    static func expiryReason(notification: String, subtype: String?) -> ExpiryReason {
        guard notification == "EXPIRED" else { return .other }
        switch subtype {
        case "VOLUNTARY": return .voluntary
        case "BILLING_RETRY": return .billing
        case "PRICE_INCREASE": return .priceIncrease
        case "PRODUCT_NOT_FOR_SALE": return .productUnavailable
        default: return .other
        }
    }

    /// `payload`: the verified notification; `transaction`: its verified `signedTransactionInfo`;
    /// `renewal`: its verified `signedRenewalInfo` (a billing issue's grace, a downgrade's product).
    /// Every event comes through the App Store (its `store`; proceeds at its configured commission).
    public static func map(payload: [(String, JSONValue)], transaction: [(String, JSONValue)]?, renewal: [(String, JSONValue)]? = nil,
                           trialAwaitingConversion: (UserID) throws -> Bool,
                           userForStoreAccount: (String) throws -> UserID? = { _ in nil }) throws -> WebhookOutcome {
        try mapEvent(payload: payload, transaction: transaction, renewal: renewal, trialAwaitingConversion: trialAwaitingConversion,
                     userForStoreAccount: userForStoreAccount).through(.appStore)
    }

    private static func mapEvent(payload: [(String, JSONValue)], transaction: [(String, JSONValue)]?, renewal: [(String, JSONValue)]?,
                                 trialAwaitingConversion: (UserID) throws -> Bool,
                                 userForStoreAccount: (String) throws -> UserID?) throws -> WebhookOutcome {
        func invalid(_ field: String, _ message: String) -> WebhookError { .invalid(field, message) }
        guard case .string(let notification)? = member(payload, "notificationType") else {
            throw WebhookError(.malformed, code: "missing_field", "'notificationType' is required", field: "notificationType")
        }
        var subtype: String?
        if case .string(let s)? = member(payload, "subtype") { subtype = s }
        let freeTrial: Bool
        if let transaction, case .string("FREE_TRIAL")? = member(transaction, "offerDiscountType") { freeTrial = true } else { freeTrial = false }
        // The user is needed before the type (a renewal asks about the user's trial).
        var user: UserID?
        var unmatched = false
        if let transaction, case .string(let token)? = member(transaction, "appAccountToken"), !token.isEmpty {
            let token = StoreAccount.normalized(token)
            user = try userForStoreAccount(token)
            unmatched = user == nil
            if user == nil { user = UserID(token) }
        }
        let mapped = try type(notification: notification, subtype: subtype, freeTrial: freeTrial) {
            guard let user else { return false }
            return try trialAwaitingConversion(user)
        }
        guard let mapped else { return .ignored(type: subtype.map { "\(notification).\($0)" } ?? notification, reason: .type) }
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
        // An upgrade's charge is a payment beside the plan change.
        let charged = mapped.carriesRevenue || (mapped == .planChanged && subtype == "UPGRADE")
        if charged, case .number(let price)? = member(transaction, "price"), price.isFinite {
            revenue = (mapped == .refunded ? -price : price) / 1000
            if case .string(let c)? = member(transaction, "currency") { currency = c }
        }
        var product: String?
        if case .string(let p)? = member(transaction, "productId") { product = p }
        var event = MappedEvent(eventID: EventID(id), type: mapped, userID: user, timestampMilliseconds: Int64(signed),
                                revenue: mapped.carriesRevenue ? revenue : nil, currency: mapped.carriesRevenue ? currency : nil, productID: product,
                                trialDays: mapped == .trialStarted ? grantedTrialDays(transaction) : nil)
        event.unmatchedStoreAccount = unmatched
        switch mapped {
        case .expired:
            event.reason = expiryReason(notification: notification, subtype: subtype)
        case .billingIssue:
            if let renewal, case .number(let grace)? = member(renewal, "gracePeriodExpiresDate"), grace.isFinite, grace >= 0, grace < 32_503_680_000_000 {
                event.graceUntilMilliseconds = Int64(grace)
            }
        case .planChanged where subtype == "UPGRADE":
            event.effective = .now
            if let revenue {
                var charge = event.companion(.renewed)
                charge.revenue = revenue
                charge.currency = currency
                event.companions = [charge]
            }
        case .planChanged where subtype == "DOWNGRADE":
            event.effective = .nextRenewal
            event.previousProductID = product
            guard let renewal, case .string(let next)? = member(renewal, "autoRenewProductId"), !next.isEmpty else {
                throw invalid("data.signedRenewalInfo", "a DOWNGRADE needs the renewal info's autoRenewProductId (the product from the next renewal)")
            }
            event.productID = next
        case .planChanged:
            // No subtype: a pending downgrade was undone; the next renewal keeps the current product.
            event.effective = .nextRenewal
        default:
            break
        }
        if mapped == .planChanged && event.productID == nil {
            throw invalid("data.signedTransactionInfo", "a DID_CHANGE_RENEWAL_PREF needs the transaction's productId")
        }
        return .event(event)
    }

    /// The free trial Apple granted, in days: `offerPeriod` (ISO 8601, `P1W`, `P3D`, `P1M`; a month
    /// counts 30 days, a year 365), else `expiresDate` − `purchaseDate` rounded to whole days; nil
    /// when the transaction says neither.
    static func grantedTrialDays(_ transaction: [(String, JSONValue)]) -> Int? {
        if case .string(let period)? = member(transaction, "offerPeriod"), let days = days(iso8601: period) { return days }
        if case .number(let expires)? = member(transaction, "expiresDate"), case .number(let purchased)? = member(transaction, "purchaseDate"),
           expires.isFinite, purchased.isFinite, expires >= purchased, expires - purchased < 4e10 {
            return Int(((expires - purchased) / 86_400_000).rounded())
        }
        return nil
    }

    /// Days in an ISO 8601 duration of years, months, weeks and days (`P1W`, `P1M2D`); nil for any other form.
    static func days(iso8601 text: String) -> Int? {
        var rest = Substring(text)
        guard rest.first == "P", rest.count > 1 else { return nil }
        rest = rest.dropFirst()
        var total = 0
        var number = ""
        for c in rest {
            if c.isASCII, c.isNumber { number.append(c); continue }
            guard let n = Int(number), n < 10_000 else { return nil }
            switch c {
            case "Y": total += n * 365
            case "M": total += n * 30
            case "W": total += n * 7
            case "D": total += n
            default: return nil
            }
            number = ""
        }
        return number.isEmpty ? total : nil
    }

    static func member(_ members: [(String, JSONValue)], _ key: String) -> JSONValue? {
        WebhookBody.member(members, key)
    }
}
