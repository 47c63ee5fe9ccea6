import Events
import ExperimentDefinitions
import Foundation

/// Reads a Cloud Pub/Sub push of a Google Play real-time developer notification and maps it,
/// with the purchase `purchases.subscriptionsv2.get` answered, onto an abctl event.
///
/// | notification | event |
/// | --- | --- |
/// | `SUBSCRIPTION_PURCHASED` (4), the line item in a free-trial offer phase | `trial_started` (`trial_days` from its start to the line item's expiry) |
/// | `SUBSCRIPTION_PURCHASED` (4) otherwise | `purchased` |
/// | `SUBSCRIPTION_RENEWED` (2), the user's trial not yet converted | `converted` |
/// | `SUBSCRIPTION_RENEWED` (2), `SUBSCRIPTION_RECOVERED` (1) otherwise | `renewed` |
/// | `SUBSCRIPTION_PURCHASED` (4) whose `linkedPurchaseToken` is a token abctl kept a payment of the same user for | `uncancelled` (the same product: a re-signup before the lapse), else `plan_changed` (the line item's `itemReplacement`: its product the previous one, `DEFERRED` mode `next_renewal`, others `now`) |
/// | `SUBSCRIPTION_CANCELED` (3), `canceledStateContext` the user's (or none) | `cancelled` |
/// | `SUBSCRIPTION_CANCELED` (3), a system cancel (the payment failed) | `billing_issue` |
/// | `SUBSCRIPTION_ON_HOLD` (5), `SUBSCRIPTION_IN_GRACE_PERIOD` (6) | `billing_issue` (in grace: `grace_until` the line item's expiry) |
/// | `SUBSCRIPTION_RESTARTED` (7) | `uncancelled` |
/// | `SUBSCRIPTION_PAUSED` (10) | `expired` (paused) |
/// | `SUBSCRIPTION_REVOKED` (12) | `refunded` (the payment kept for the token, when not refunded yet) and `expired` (other) |
/// | `SUBSCRIPTION_EXPIRED` (13) | `expired`: the user's cancel voluntary, a system cancel billing, the developer's (or none) other |
/// | `voidedPurchaseNotification` of a purchase token abctl kept a payment for | `refunded`, that payment (once) |
/// | anything else (`testNotification`, other types, one-time products; a cancel or expiry because the subscription was replaced: no end) | ignored |
///
/// The user is the purchase's `externalAccountIdentifiers.obfuscatedExternalAccountId`, mapped
/// back through `userForStoreAccount` (nil: the id itself is the user); `event_id` is the Pub/Sub
/// `messageId`; `ts` the notification's `eventTimeMillis`; revenue the line item's recurring price.
public enum GooglePlayMapping {
    public struct Notification: Sendable, Equatable {
        public enum Kind: Sendable, Equatable {
            /// A subscription notification of a type abctl maps, with its purchase token.
            case subscription(type: Int, purchaseToken: String)
            case voided(purchaseToken: String)
            /// Accepted and counted, nothing stored (named for the metric).
            case ignored(String)
        }

        public var messageID: String
        public var eventTimeMilliseconds: Int64
        public var kind: Kind

        /// Whether mapping needs the purchase from `purchases.subscriptionsv2.get`.
        public var needsPurchase: Bool {
            if case .subscription = kind { true } else { false }
        }
    }

    public static let recovered = 1, renewed = 2, canceled = 3, purchased = 4, onHold = 5, inGracePeriod = 6, restarted = 7,
                      paused = 10, revoked = 12, expired = 13
    /// The subscription notification types abctl has an event for; the others are ignored and counted.
    static let mappedTypes: Set<Int> = [recovered, renewed, canceled, purchased, onHold, inGracePeriod, restarted, paused, revoked, expired]

    /// The code of the error a notification for another package throws.
    public static let wrongPackageCode = "wrong_package"

    /// The push body, checked: `message.data` a base64 developer notification for `packageName`.
    public static func parse(_ body: [UInt8], packageName: String) throws(WebhookError) -> Notification {
        guard let push = GooglePushVerifier.object(body) else { throw malformed("the body is not a JSON object (a Pub/Sub push)", field: nil) }
        guard case .object(let message)? = GooglePushVerifier.member(push, "message") else { throw malformed("'message' (an object) is required", field: "message") }
        guard case .string(let id)? = GooglePushVerifier.member(message, "messageId") ?? GooglePushVerifier.member(message, "message_id"), !id.isEmpty else {
            throw malformed("'message.messageId' is required: it is the idempotency key", field: "message.messageId")
        }
        guard case .string(let data)? = GooglePushVerifier.member(message, "data"), let decoded = Data(base64Encoded: data),
              let notification = GooglePushVerifier.object([UInt8](decoded)) else {
            throw malformed("'message.data' must be a base64 JSON developer notification", field: "message.data")
        }
        guard case .string(let package)? = GooglePushVerifier.member(notification, "packageName") else {
            throw malformed("the notification has no 'packageName'", field: "message.data.packageName")
        }
        guard package == packageName else {
            throw WebhookError(.unverified, code: Self.wrongPackageCode, "the notification is for '\(package)', not '\(packageName)' (see --googleplay-package)",
                               field: "message.data.packageName")
        }
        guard case .string(let millisText)? = GooglePushVerifier.member(notification, "eventTimeMillis"), let millis = Int64(millisText),
              millis >= 0, millis < 32_503_680_000_000 else {
            throw malformed("'eventTimeMillis' (milliseconds since 1970, as a string) is required", field: "message.data.eventTimeMillis")
        }
        let kind: Notification.Kind
        if case .object(let subscription)? = GooglePushVerifier.member(notification, "subscriptionNotification") {
            guard case .number(let type)? = GooglePushVerifier.member(subscription, "notificationType"), type == type.rounded(), abs(type) < 1e6 else {
                throw malformed("'subscriptionNotification.notificationType' (a number) is required", field: "message.data.subscriptionNotification.notificationType")
            }
            let mapped = mappedTypes.contains(Int(type))
            if mapped {
                guard case .string(let token)? = GooglePushVerifier.member(subscription, "purchaseToken"), !token.isEmpty else {
                    throw malformed("'subscriptionNotification.purchaseToken' is required", field: "message.data.subscriptionNotification.purchaseToken")
                }
                kind = .subscription(type: Int(type), purchaseToken: token)
            } else {
                kind = .ignored("subscriptionNotification.\(Int(type))")
            }
        } else if case .object(let voided)? = GooglePushVerifier.member(notification, "voidedPurchaseNotification") {
            guard case .string(let token)? = GooglePushVerifier.member(voided, "purchaseToken"), !token.isEmpty else {
                throw malformed("'voidedPurchaseNotification.purchaseToken' is required", field: "message.data.voidedPurchaseNotification.purchaseToken")
            }
            kind = .voided(purchaseToken: token)
        } else if GooglePushVerifier.member(notification, "testNotification") != nil {
            kind = .ignored("testNotification")
        } else if GooglePushVerifier.member(notification, "oneTimeProductNotification") != nil {
            kind = .ignored("oneTimeProductNotification")
        } else {
            kind = .ignored("unknown")
        }
        return Notification(messageID: id, eventTimeMilliseconds: millis, kind: kind)
    }

    public typealias Lookups = (trialAwaitingConversion: @Sendable (UserID) throws -> Bool, payment: @Sendable (String) throws -> LedgerPayment?,
                                userForStoreAccount: @Sendable (String) throws -> String?)

    /// The event; `purchase` is the `SubscriptionPurchaseV2` for a subscription notification.
    public static func map(_ notification: Notification, purchase: [(String, JSONValue)]?, lookups: Lookups) throws -> WebhookOutcome {
        try mapEvent(notification, purchase: purchase, lookups: lookups).through(.googlePlay)
    }

    private static func mapEvent(_ notification: Notification, purchase: [(String, JSONValue)]?, lookups: Lookups) throws -> WebhookOutcome {
        switch notification.kind {
        case .ignored(let name):
            return .ignored(type: name, reason: .type)
        case .voided(let token):
            guard let payment = try lookups.payment("googleplay:" + token) else { return .ignored(type: "voidedPurchaseNotification", reason: .noUser) }
            guard let refund = refunding(payment, token: token, notification) else {
                return .ignored(type: "voidedPurchaseNotification", reason: .alreadyCounted)
            }
            return .event(refund.event, remember: refund.ledger)
        case .subscription(let type, let token):
            guard let purchase else { throw GooglePlayAPI.unavailable("no purchase was read") }
            guard let account = accountID(purchase) else { return .ignored(type: "subscriptionNotification.\(type)", reason: .noUser) }
            let storeAccount = StoreAccount.normalized(account)
            let matched = try lookups.userForStoreAccount(storeAccount)
            let user = UserID(matched ?? storeAccount)
            let item = firstLineItem(purchase)
            var product: String?
            if let item, case .string(let p)? = GooglePushVerifier.member(item, "productId") { product = p }
            var base = MappedEvent(eventID: EventID(notification.messageID), type: .cancelled, userID: user,
                                   timestampMilliseconds: notification.eventTimeMilliseconds, productID: product)
            base.unmatchedStoreAccount = matched == nil
            let ignored = WebhookOutcome.ignored(type: "subscriptionNotification.\(type)", reason: .type)
            switch type {
            case canceled:
                switch cancellation(purchase) {
                case .user?, nil: return .event(base)
                case .system?: base.type = .billingIssue; return .event(base)
                // The developer's cancel is not the person's choice; a replaced subscription goes on under its new token.
                case .developer?, .replacement?: return ignored
                }
            case onHold, inGracePeriod:
                base.type = .billingIssue
                if type == inGracePeriod, let item { base.graceUntilMilliseconds = expiryMilliseconds(item) }
                return .event(base)
            case restarted:
                base.type = .uncancelled
                return .event(base)
            case paused:
                base.type = .expired
                base.reason = .paused
                return .event(base)
            case expired:
                base.type = .expired
                switch cancellation(purchase) {
                case .user?: base.reason = .voluntary
                case .system?: base.reason = .billing
                case .developer?, nil: base.reason = .other
                case .replacement?: return ignored   // the old token's expiry by replacement is no end
                }
                return .event(base)
            case revoked:
                base.type = .expired
                base.reason = .other
                // The revocation refunds the payment kept for the token, unless a voided purchase already did.
                guard let payment = try lookups.payment("googleplay:" + token), payment.userID == user,
                      var refund = refunding(payment, token: token, notification) else { return .event(base) }
                refund.event.productID = product
                refund.event.unmatchedStoreAccount = base.unmatchedStoreAccount
                var end = refund.event.companion(.expired)
                end.reason = .other
                refund.event.companions = [end]
                return .event(refund.event, remember: refund.ledger)
            case purchased:
                if let linked = try linkedSubscription(purchase, user: user, item: item, lookups: lookups) {
                    var event = base
                    event.type = linked.product == nil ? .uncancelled : .planChanged
                    event.previousProductID = linked.product
                    event.effective = linked.product == nil ? nil : linked.effective
                    return .event(event)
                }
            default:
                break
            }
            if type == purchased, let item, let days = freeTrialDays(item, purchase: purchase) {
                var event = base
                event.type = .trialStarted
                event.trialDays = days
                return .event(event)
            }
            guard let item, let price = recurringPrice(item) else {
                throw WebhookError.invalid("lineItems", "the purchase has no line item with autoRenewingPlan.recurringPrice")
            }
            var event = base
            event.type = type == purchased ? .purchased : (try lookups.trialAwaitingConversion(user) ? .converted : .renewed)
            event.revenue = Double(price.micros) / 1_000_000
            event.currency = price.currency
            return .event(event, remember: LedgerEntry(keys: ["googleplay:" + token],
                                                       payment: LedgerPayment(userID: user, currency: price.currency, amountMinor: price.micros)))
        }
    }

    /// Who cancelled, from the purchase's `canceledStateContext`.
    enum Cancellation { case user, system, developer, replacement }

    static func cancellation(_ purchase: [(String, JSONValue)]) -> Cancellation? {
        guard case .object(let context)? = GooglePushVerifier.member(purchase, "canceledStateContext") else { return nil }
        if GooglePushVerifier.member(context, "userInitiatedCancellation") != nil { return .user }
        if GooglePushVerifier.member(context, "systemInitiatedCancellation") != nil { return .system }
        if GooglePushVerifier.member(context, "developerInitiatedCancellation") != nil { return .developer }
        if GooglePushVerifier.member(context, "replacementCancellation") != nil { return .replacement }
        return nil
    }

    /// A refund of `payment` (kept for `token`) and the ledger entry that marks it refunded; nil
    /// when it was refunded already (a voided purchase and a revocation name the same payment).
    static func refunding(_ payment: LedgerPayment, token: String, _ notification: Notification) -> (event: MappedEvent, ledger: LedgerEntry)? {
        guard payment.refundedMinor < payment.amountMinor else { return nil }
        var kept = payment
        kept.refundedMinor = payment.amountMinor
        let event = MappedEvent(eventID: EventID(notification.messageID), type: .refunded, userID: payment.userID,
                                timestampMilliseconds: notification.eventTimeMilliseconds,
                                revenue: -Double(payment.amountMinor - payment.refundedMinor) / 1_000_000, currency: payment.currency)
        return (event, LedgerEntry(keys: ["googleplay:" + token], payment: kept))
    }

    /// A purchase that replaces an earlier subscription of the same user (`linkedPurchaseToken`, a
    /// token abctl kept a payment of this user for): `product` nil when the product is the same (a
    /// re-signup before the lapse), else the product replaced, with when the new one takes over.
    static func linkedSubscription(_ purchase: [(String, JSONValue)], user: UserID, item: [(String, JSONValue)]?,
                                   lookups: Lookups) throws -> (product: String?, effective: PlanChangeEffect)? {
        guard case .string(let linked)? = GooglePushVerifier.member(purchase, "linkedPurchaseToken"), !linked.isEmpty,
              let earlier = try lookups.payment("googleplay:" + linked), earlier.userID == user else { return nil }
        var current: String?
        if let item, case .string(let p)? = GooglePushVerifier.member(item, "productId") { current = p }
        guard let item, case .object(let replaced)? = GooglePushVerifier.member(item, "itemReplacement"),
              case .string(let previous)? = GooglePushVerifier.member(replaced, "productId"), previous != current else { return (nil, .now) }
        var effective = PlanChangeEffect.now
        if case .string("DEFERRED")? = GooglePushVerifier.member(replaced, "replacementMode") { effective = .nextRenewal }
        return (previous, effective)
    }

    /// The line item's `expiryTime`, in milliseconds since 1970.
    static func expiryMilliseconds(_ item: [(String, JSONValue)]) -> Int64? {
        guard case .string(let text)? = GooglePushVerifier.member(item, "expiryTime"), let date = RFC3339.parse(text) else { return nil }
        return Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    static func accountID(_ purchase: [(String, JSONValue)]) -> String? {
        guard case .object(let ids)? = GooglePushVerifier.member(purchase, "externalAccountIdentifiers"),
              case .string(let id)? = GooglePushVerifier.member(ids, "obfuscatedExternalAccountId"), !id.isEmpty else { return nil }
        return id
    }

    static func firstLineItem(_ purchase: [(String, JSONValue)]) -> [(String, JSONValue)]? {
        guard case .array(let items)? = GooglePushVerifier.member(purchase, "lineItems"), case .object(let first)? = items.first else { return nil }
        return first
    }

    /// The trial's length when the line item is in a free-trial offer phase: from the
    /// subscription's `startTime` to the line item's `expiryTime` (the trial's end), in days.
    static func freeTrialDays(_ item: [(String, JSONValue)], purchase: [(String, JSONValue)]) -> Int? {
        guard case .object(let phase)? = GooglePushVerifier.member(item, "offerPhase"), GooglePushVerifier.member(phase, "freeTrial") != nil else { return nil }
        guard case .string(let start)? = GooglePushVerifier.member(purchase, "startTime"), let from = RFC3339.parse(start),
              case .string(let end)? = GooglePushVerifier.member(item, "expiryTime"), let to = RFC3339.parse(end), to >= from else { return 0 }
        return Int((to.timeIntervalSince(from) / 86_400).rounded())
    }

    /// `autoRenewingPlan.recurringPrice` (a `Money`: currencyCode, units as a string, nanos) in micros.
    static func recurringPrice(_ item: [(String, JSONValue)]) -> (micros: Int64, currency: String)? {
        guard case .object(let plan)? = GooglePushVerifier.member(item, "autoRenewingPlan"),
              case .object(let money)? = GooglePushVerifier.member(plan, "recurringPrice"),
              case .string(let currency)? = GooglePushVerifier.member(money, "currencyCode") else { return nil }
        var units: Int64 = 0
        switch GooglePushVerifier.member(money, "units") {
        case .string(let text)?: guard let u = Int64(text), abs(u) < 1_000_000_000_000 else { return nil }; units = u
        case .number(let n)? where n == n.rounded() && abs(n) < 1e12: units = Int64(n)
        case nil: units = 0
        default: return nil
        }
        var nanos: Int64 = 0
        if case .number(let n)? = GooglePushVerifier.member(money, "nanos"), n == n.rounded(), abs(n) < 1e9 { nanos = Int64(n) }
        return (units * 1_000_000 + nanos / 1000, currency)
    }

    static func malformed(_ message: String, field: String?) -> WebhookError {
        WebhookError(.malformed, code: "invalid_notification", message, field: field)
    }
}
