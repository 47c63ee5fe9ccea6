import Events
import ExperimentDefinitions

/// Maps one RevenueCat webhook body (`{"api_version", "event": {…}}`) onto an abctl event.
///
/// | RevenueCat | event |
/// | --- | --- |
/// | any type with a negative `price` | `refunded` |
/// | `INITIAL_PURCHASE` with `period_type` `TRIAL` | `trial_started` |
/// | `INITIAL_PURCHASE` otherwise, `NON_RENEWING_PURCHASE` | `purchased` |
/// | `RENEWAL` with `is_trial_conversion` true | `converted` |
/// | `RENEWAL` otherwise | `renewed` |
/// | `CANCELLATION` with `cancel_reason` `BILLING_ERROR` | `billing_issue` (the store's cancel, not the person's) |
/// | `CANCELLATION` otherwise | `cancelled` |
/// | `UNCANCELLATION` | `uncancelled` |
/// | `BILLING_ISSUE` | `billing_issue` (`grace_until` from `grace_period_expiration_at_ms`) |
/// | `EXPIRATION` | `expired`, `reason` from `expiration_reason`: `UNSUBSCRIBE` voluntary, `BILLING_ERROR` billing, `PRICE_INCREASE` price_increase, `SUBSCRIPTION_PAUSED` paused, any other other |
/// | `PRODUCT_CHANGE` | `plan_changed`: `new_product_id` the product (`unknown` when absent), `product_id` the previous one |
/// | anything else (`TEST`, `SUBSCRIPTION_PAUSED`, `SUBSCRIPTION_EXTENDED`, …) | ignored (accepted and counted) |
///
/// People: a mapped event also links each of its `aliases` and its `original_app_user_id`
/// to `app_user_id` (`MappedEvent.links`). A `TRANSFER` links each `transferred_from` id that is a
/// RevenueCat anonymous id (`$RCAnonymousID:…`) to the first `transferred_to` id; one with none is
/// ignored with reason `transfer_between_known_ids`.
///
/// `id` is the idempotency key (RevenueCat retries with the same id); `app_user_id` is the user.
/// Payments are timed by `purchased_at_ms` (else `event_timestamp_ms`); everything else (cancels,
/// refunds, the subscription's later life) by `event_timestamp_ms` (else `purchased_at_ms`). Revenue is `price`, which
/// RevenueCat reports in USD; proceeds are `price × (1 − commission_percentage − tax_percentage)`
/// (`1 − takehome_percentage` where the commission is not given; before tax when
/// `tax_percentage` is not given; the store's cut from `products.json` when neither share is).
/// `store` maps `APP_STORE` and `MAC_APP_STORE` to `app_store`, `PLAY_STORE` to `google_play`,
/// `STRIPE` to `stripe`, any other to `other`. A pure function: no I/O, no clock.
public enum RevenueCatMapping {
    /// The field of RevenueCat's body an event field was read from, so a refusal names what the sender wrote.
    public static func bodyField(_ eventField: String) -> String {
        switch eventField {
        case "event_id": "event.id"
        case "user_id": "event.app_user_id"
        case "ts": "event.purchased_at_ms"
        case "revenue": "event.price"
        default: "event.\(eventField)"
        }
    }

    /// A type this project does not use is `.ignored(type:reason: .type)`: the webhook answers 200 and counts it.
    public static func map(_ body: [UInt8]) throws(WebhookError) -> WebhookOutcome {
        let object = try WebhookBody.object(body)
        guard let eventValue = WebhookBody.member(object, "event"), eventValue != .null else {
            throw WebhookError(.malformed, code: "missing_field", "'event' is required (a RevenueCat webhook body is {\"api_version\", \"event\": {…}})", field: "event")
        }
        guard case .object(let members) = eventValue else {
            throw WebhookError(.malformed, code: "invalid_field", "'event' must be an object, not \(eventValue.typeName)", field: "event")
        }
        var event: [String: JSONValue] = [:]
        for (k, v) in members where event[k] == nil { event[k] = v }

        func invalid(_ field: String, _ message: String) -> WebhookError {
            .invalid("event.\(field)", message)
        }
        func string(_ key: String) throws(WebhookError) -> String? {
            switch event[key] {
            case nil, .null?: return nil
            case .string(let s)?: return s.isEmpty ? nil : s
            case let other?: throw invalid(key, "'event.\(key)' must be a string, not \(other.typeName)")
            }
        }
        func number(_ key: String) throws(WebhookError) -> Double? {
            switch event[key] {
            case nil, .null?: return nil
            case .number(let n)?: return n
            case let other?: throw invalid(key, "'event.\(key)' must be a number, not \(other.typeName)")
            }
        }

        guard let type = try string("type") else {
            throw WebhookError(.malformed, code: "missing_field", "'event.type' is required", field: "event.type")
        }
        func strings(_ key: String) throws(WebhookError) -> [String] {
            switch event[key] {
            case nil, .null?: return []
            case .array(let items)?:
                var out: [String] = []
                for item in items {
                    guard case .string(let s) = item else { throw invalid(key, "'event.\(key)' must be an array of strings, not one holding \(item.typeName)") }
                    if !s.isEmpty { out.append(s) }
                }
                return out
            case let other?: throw invalid(key, "'event.\(key)' must be an array of strings, not \(other.typeName)")
            }
        }
        func time(_ key: String, _ value: Double) throws(WebhookError) -> Int64 {
            guard value.isFinite, value >= 0, value < 32_503_680_000_000 else {
                throw invalid(key, "the time \(JSONValue.format(value)) ms is out of range")
            }
            return Int64(value)
        }

        if type == "TRANSFER" {
            let from = try strings("transferred_from"), to = try strings("transferred_to")
            guard let known = to.first else { throw invalid("transferred_to", "a TRANSFER names the ids it moved to in 'event.transferred_to'") }
            guard let at = try number("event_timestamp_ms") else { throw invalid("event_timestamp_ms", "'event.event_timestamp_ms' is required") }
            let links = from.filter { $0.hasPrefix(Self.anonymousPrefix) && $0 != known }
                .map { MappedLink(user: UserID($0), identity: UserID(known)) }
            if links.isEmpty { return .ignored(type: type, reason: .transferBetweenKnownIDs) }
            return .links(links, timestampMilliseconds: try time("event_timestamp_ms", at), type: type)
        }

        let price = try number("price")
        let mappedType: EventType
        if let price, price < 0 {
            mappedType = .refunded
        } else {
            switch type {
            case "INITIAL_PURCHASE": mappedType = try string("period_type") == "TRIAL" ? .trialStarted : .purchased
            case "NON_RENEWING_PURCHASE": mappedType = .purchased
            case "RENEWAL":
                let conversion: Bool
                switch event["is_trial_conversion"] {
                case .bool(let b)?: conversion = b
                case nil, .null?: conversion = false
                case let other?: throw invalid("is_trial_conversion", "'event.is_trial_conversion' must be a boolean, not \(other.typeName)")
                }
                mappedType = conversion ? .converted : .renewed
            // A cancel the store makes because the payment failed is not the person's choice.
            case "CANCELLATION": mappedType = try string("cancel_reason") == "BILLING_ERROR" ? .billingIssue : .cancelled
            case "UNCANCELLATION": mappedType = .uncancelled
            case "BILLING_ISSUE": mappedType = .billingIssue
            case "EXPIRATION": mappedType = .expired
            case "PRODUCT_CHANGE": mappedType = .planChanged
            default: return .ignored(type: type, reason: .type)
            }
        }

        guard let id = try string("id") else { throw invalid("id", "'event.id' is required: it is the idempotency key") }
        let appUser = try string("app_user_id")
        let originalUser = try string("original_app_user_id")
        guard let user = appUser ?? originalUser else {
            throw invalid("app_user_id", "'event.app_user_id' is required")
        }
        let purchased = try number("purchased_at_ms")
        let happened = try number("event_timestamp_ms")
        let isPayment = (mappedType.carriesRevenue && mappedType != .refunded) || mappedType == .trialStarted
        guard let milliseconds = isPayment ? (purchased ?? happened) : (happened ?? purchased) else {
            throw invalid(isPayment ? "purchased_at_ms" : "event_timestamp_ms", "the event has neither 'purchased_at_ms' nor 'event_timestamp_ms'")
        }
        guard milliseconds.isFinite, milliseconds >= 0, milliseconds < 32_503_680_000_000 else {
            throw invalid(isPayment ? "purchased_at_ms" : "event_timestamp_ms", "the time \(JSONValue.format(milliseconds)) ms is out of range")
        }
        let revenue = mappedType.carriesRevenue ? price : nil
        var product = try string("product_id")
        var previousProduct: String?
        if mappedType == .planChanged {
            previousProduct = product
            product = try string("new_product_id") ?? "unknown"
        }
        func share(_ key: String) throws(WebhookError) -> Double? {
            guard let value = try number(key) else { return nil }
            guard value >= 0, value <= 1 else { throw invalid(key, "'event.\(key)' must be a share from 0 to 1, not \(JSONValue.format(value))") }
            return value
        }
        let takehome = try share("takehome_percentage")
        let commission = try share("commission_percentage") ?? takehome.map { 1 - $0 }
        let tax = try share("tax_percentage")
        let proceeds = revenue.flatMap { price in commission.map { price * max(0, 1 - $0 - (tax ?? 0)) } }
        let store: PaymentStore? = switch try string("store") {
        case "APP_STORE"?, "MAC_APP_STORE"?: .appStore
        case "PLAY_STORE"?: .googlePlay
        case "STRIPE"?: .stripe
        case nil: nil
        default: .other
        }
        var mapped = MappedEvent(eventID: EventID(id), type: mappedType, userID: UserID(user), timestampMilliseconds: Int64(milliseconds),
                                 revenue: revenue, currency: revenue == nil ? nil : "USD", productID: product,
                                 store: store, proceeds: proceeds, proceedsBeforeTax: proceeds != nil && tax == nil)
        if mappedType == .expired { mapped.reason = Self.expiryReason(try string("expiration_reason")) }
        if mappedType == .billingIssue, let grace = try number("grace_period_expiration_at_ms") {
            mapped.graceUntilMilliseconds = try time("grace_period_expiration_at_ms", grace)
        }
        mapped.previousProductID = previousProduct
        var others: [String] = []
        for alias in try strings("aliases") + [originalUser].compactMap({ $0 }) where alias != user && !others.contains(alias) { others.append(alias) }
        mapped.links = others.map { MappedLink(user: UserID($0), identity: UserID(user)) }
        return .event(mapped)
    }

    /// An `EXPIRATION`'s `expiration_reason` in abctl's words.
    static func expiryReason(_ reason: String?) -> ExpiryReason {
        switch reason {
        case "UNSUBSCRIBE": .voluntary
        case "BILLING_ERROR": .billing
        case "PRICE_INCREASE": .priceIncrease
        case "SUBSCRIPTION_PAUSED": .paused
        default: .other
        }
    }

    /// The prefix of the ids RevenueCat makes for users the app has not logged in.
    public static let anonymousPrefix = "$RCAnonymousID:"

}
