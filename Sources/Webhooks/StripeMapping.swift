import Events
import ExperimentDefinitions

/// Maps one verified Stripe event onto an abctl event (docs/Webhooks.md).
///
/// | Stripe event | event |
/// | --- | --- |
/// | `customer.subscription.created` with `status` `trialing` | `trial_started` (`ts` its `trial_start`, `trial_days` to `trial_end`) |
/// | `invoice.paid`, `amount_paid` > 0, `billing_reason` `subscription_create` | `purchased` (the first invoice, no trial before it) |
/// | `invoice.paid`, `amount_paid` > 0, the user's trial not yet converted | `converted` |
/// | `invoice.paid`, `amount_paid` > 0, otherwise | `renewed` |
/// | `customer.subscription.updated` whose `cancel_at_period_end` turned true (or `cancel_at` was set) | `cancelled` |
/// | `customer.subscription.updated` whose `cancel_at_period_end` turned false (or `cancel_at` was cleared) | `uncancelled` |
/// | `customer.subscription.updated` whose first item's price changed | `plan_changed` (`now`: Stripe switches at once), the old price the previous product |
/// | `customer.subscription.deleted` | `expired`, `reason` from `cancellation_details.reason`: `payment_failed` billing, `cancellation_requested` voluntary, else other |
/// | `invoice.payment_failed` | `billing_issue` |
/// | `charge.refunded` of a charge (or payment intent) kept at `invoice.paid` | `refunded`, the rise in `amount_refunded` |
/// | anything else, or no `abctl_user_id` | ignored |
///
/// The user is `metadata.abctl_user_id` of the subscription (on an invoice: its subscription
/// details' metadata, `parent.subscription_details` in API versions from 2025-03-31,
/// `subscription_details` before). `event_id` is the Stripe event id (Stripe retries with it).
/// Amounts are in the currency's minor unit as Stripe defines it (`StripeCurrency`). The
/// mapping reads the ledger and the user's trial through the two closures; no other I/O.
public enum StripeMapping {
    public typealias Lookups = (trialAwaitingConversion: (UserID) throws -> Bool, payment: (String) throws -> LedgerPayment?)

    public static func map(_ body: [UInt8], lookups: Lookups) throws -> WebhookOutcome {
        try mapEvent(body, lookups: lookups).through(.stripe)
    }

    private static func mapEvent(_ body: [UInt8], lookups: Lookups) throws -> WebhookOutcome {
        guard let node = try? JSONReader.parse(body), case .object(let event) = node.value else {
            throw WebhookError(.malformed, code: "invalid_json", "the body is not a JSON object (a Stripe event)")
        }
        let root = Object(event, path: "")
        let type = try root.string("type")
        let eventID = EventID(try root.string("id"))
        let created = try root.integer("created")
        let object = try root.object("data").object("object")
        switch type {
        case "customer.subscription.created":
            guard try object.optionalString("status") == "trialing" else { return .ignored(type: "\(type).\(try object.optionalString("status") ?? "")", reason: .type) }
            guard let user = try object.user() else { return .ignored(type: type, reason: .noUser) }
            let start = try object.integer("trial_start"), end = try object.integer("trial_end")
            guard end >= start else { throw WebhookError.invalid(object.path + "trial_end", "'trial_end' is before 'trial_start'") }
            let days = Int(((Double(end - start)) / 86_400).rounded())
            return .event(MappedEvent(eventID: eventID, type: .trialStarted, userID: user, timestampMilliseconds: try milliseconds(start, object.path + "trial_start"),
                                      productID: try object.subscriptionProduct(), trialDays: days))

        case "invoice.paid":
            let paid = try object.integer("amount_paid")
            guard paid > 0 else { return .ignored(type: "\(type).free", reason: .type) }
            guard let user = try object.invoiceUser() else { return .ignored(type: type, reason: .noUser) }
            let currency = try object.string("currency").uppercased()
            let mapped: EventType
            if try object.optionalString("billing_reason") == "subscription_create" {
                mapped = .purchased
            } else {
                mapped = try lookups.trialAwaitingConversion(user) ? .converted : .renewed
            }
            var paidAt = created
            if let transitions = try object.optionalObject("status_transitions"), let at = try transitions.optionalInteger("paid_at") { paidAt = at }
            let keys = try object.paymentKeys()
            let remember = keys.isEmpty ? nil : LedgerEntry(keys: keys, payment: LedgerPayment(userID: user, currency: currency, amountMinor: paid))
            return .event(MappedEvent(eventID: eventID, type: mapped, userID: user, timestampMilliseconds: try milliseconds(paidAt, "created"),
                                      revenue: try StripeCurrency.major(paid, currency, field: object.path + "amount_paid"),
                                      currency: currency, productID: try object.invoiceProduct()),
                          remember: remember)

        case "customer.subscription.updated":
            // Only a change counts: Stripe lists the old value of every field that changed.
            guard let previous = try root.object("data").optionalObject("previous_attributes"),
                  let change = try Self.subscriptionChange(object, previous: previous) else { return .ignored(type: type, reason: .type) }
            guard let user = try object.user() else { return .ignored(type: type, reason: .noUser) }
            switch change {
            case .cancelled:
                let at = try object.optionalInteger("canceled_at") ?? created
                return .event(MappedEvent(eventID: eventID, type: .cancelled, userID: user, timestampMilliseconds: try milliseconds(at, "canceled_at"),
                                          productID: try object.subscriptionProduct()))
            case .uncancelled:
                return .event(MappedEvent(eventID: eventID, type: .uncancelled, userID: user, timestampMilliseconds: try milliseconds(created, "created"),
                                          productID: try object.subscriptionProduct()))
            case .planChanged(let from, let to):
                return .event(MappedEvent(eventID: eventID, type: .planChanged, userID: user, timestampMilliseconds: try milliseconds(created, "created"),
                                          productID: to, previousProductID: from, effective: .now))
            }

        case "customer.subscription.deleted":
            guard let user = try object.user() else { return .ignored(type: type, reason: .noUser) }
            let at = try object.optionalInteger("ended_at") ?? object.optionalInteger("canceled_at") ?? created
            let why = try object.optionalObject("cancellation_details")?.optionalString("reason")
            let reason: ExpiryReason = switch why {
            case "payment_failed"?: .billing
            case "cancellation_requested"?: .voluntary
            default: .other
            }
            return .event(MappedEvent(eventID: eventID, type: .expired, userID: user, timestampMilliseconds: try milliseconds(at, "ended_at"),
                                      productID: try object.subscriptionProduct(), reason: reason))

        case "invoice.payment_failed":
            guard let user = try object.invoiceUser() else { return .ignored(type: type, reason: .noUser) }
            return .event(MappedEvent(eventID: eventID, type: .billingIssue, userID: user, timestampMilliseconds: try milliseconds(created, "created"),
                                      productID: try object.invoiceProduct()))

        case "charge.refunded":
            let charge = try object.string("id")
            var keys = ["stripe:charge:" + charge]
            if let intent = try object.optionalID("payment_intent") { keys.append("stripe:payment_intent:" + intent) }
            var found: LedgerPayment?
            for key in keys where found == nil { found = try lookups.payment(key) }
            guard let payment = found else { return .ignored(type: type, reason: .noUser) }
            let refunded = try object.integer("amount_refunded")
            let currency = try object.string("currency").uppercased()
            let rise = refunded - payment.refundedMinor
            guard rise > 0 else { return .ignored(type: type, reason: .alreadyCounted) }
            var kept = payment
            kept.refundedMinor = refunded
            return .event(MappedEvent(eventID: eventID, type: .refunded, userID: payment.userID, timestampMilliseconds: try milliseconds(created, "created"),
                                      revenue: -(try StripeCurrency.major(rise, currency, field: object.path + "amount_refunded")), currency: currency),
                          remember: LedgerEntry(keys: keys, payment: kept))

        default:
            return .ignored(type: type, reason: .type)
        }
    }

    /// What a `customer.subscription.updated` changed that abctl has a type for.
    enum SubscriptionChange: Equatable {
        case cancelled, uncancelled
        case planChanged(from: String, to: String)
    }

    /// The cancel set or cleared (`cancel_at_period_end` turned true or false, `cancel_at` set or
    /// cleared), else the first item's price changed; nil for any other change.
    static func subscriptionChange(_ object: Object, previous: Object) throws(WebhookError) -> SubscriptionChange? {
        func listed(_ key: String) -> Bool { previous.members.contains { $0.0 == key } }
        if listed("cancel_at_period_end") || listed("cancel_at") {
            // A field Stripe did not list kept its value.
            let before = listed("cancel_at_period_end") ? previous : object
            let cancelAtBefore = listed("cancel_at") ? previous : object
            let endsNow = try object.optionalBool("cancel_at_period_end") == true || object.value("cancel_at") != nil
            let endedBefore = try before.optionalBool("cancel_at_period_end") == true || cancelAtBefore.value("cancel_at") != nil
            if endsNow != endedBefore { return endsNow ? .cancelled : .uncancelled }
        }
        if previous.value("items") != nil, let now = try object.subscriptionProduct(), let before = try previous.subscriptionProduct(), now != before {
            return .planChanged(from: before, to: now)
        }
        return nil
    }

    static func milliseconds(_ seconds: Int64, _ field: String) throws(WebhookError) -> Int64 {
        guard seconds >= 0, seconds < 32_503_680_000 else { throw .invalid(field, "the time \(seconds) s is out of range") }
        return seconds * 1000
    }

    /// A JSON object and where it sits in the body, for errors that name the field.
    struct Object {
        let members: [(String, JSONValue)]
        let path: String

        init(_ members: [(String, JSONValue)], path: String) {
            self.members = members
            self.path = path
        }

        func value(_ key: String) -> JSONValue? {
            switch members.last(where: { $0.0 == key })?.1 {
            case nil, .null?: nil
            case let v?: v
            }
        }

        func missing(_ key: String, _ what: String) -> WebhookError {
            WebhookError(.malformed, code: "missing_field", "'\(path + key)' (\(what)) is required", field: path + key)
        }

        func wrong(_ key: String, _ what: String) -> WebhookError {
            WebhookError(.malformed, code: "invalid_field", "'\(path + key)' must be \(what)", field: path + key)
        }

        func optionalString(_ key: String) throws(WebhookError) -> String? {
            switch value(key) {
            case nil: return nil
            case .string(let s)?: return s
            default: throw wrong(key, "a string")
            }
        }

        func string(_ key: String) throws(WebhookError) -> String {
            guard let s = try optionalString(key), !s.isEmpty else { throw missing(key, "a string") }
            return s
        }

        func optionalInteger(_ key: String) throws(WebhookError) -> Int64? {
            switch value(key) {
            case nil: return nil
            case .number(let n)? where n == n.rounded() && abs(n) < 9e15: return Int64(n)
            default: throw wrong(key, "an integer")
            }
        }

        func integer(_ key: String) throws(WebhookError) -> Int64 {
            guard let n = try optionalInteger(key) else { throw missing(key, "an integer") }
            return n
        }

        func optionalBool(_ key: String) throws(WebhookError) -> Bool? {
            switch value(key) {
            case nil: return nil
            case .bool(let b)?: return b
            default: throw wrong(key, "a boolean")
            }
        }

        func optionalObject(_ key: String) throws(WebhookError) -> Object? {
            switch value(key) {
            case nil: return nil
            case .object(let m)?: return Object(m, path: path + key + ".")
            default: throw wrong(key, "an object")
            }
        }

        func object(_ key: String) throws(WebhookError) -> Object {
            guard let o = try optionalObject(key) else { throw missing(key, "an object") }
            return o
        }

        /// An id field, which Stripe sends as the id or, when expanded, as the object.
        func optionalID(_ key: String) throws(WebhookError) -> String? {
            switch value(key) {
            case nil: return nil
            case .string(let s)?: return s.isEmpty ? nil : s
            case .object(let m)?: return try Object(m, path: path + key + ".").optionalString("id")
            default: throw wrong(key, "an id or an object")
            }
        }

        /// The items of a list object (`{"object": "list", "data": [...]}`).
        func listItems(_ key: String) throws(WebhookError) -> [Object] {
            guard let list = try optionalObject(key), let data = list.value("data") else { return [] }
            guard case .array(let items) = data else { throw list.wrong("data", "an array") }
            var out: [Object] = []
            for (i, item) in items.enumerated() {
                guard case .object(let m) = item else { throw list.wrong("data", "an array of objects") }
                out.append(Object(m, path: "\(list.path)data[\(i)]."))
            }
            return out
        }

        /// `metadata.abctl_user_id`, when set and not empty.
        func user() throws(WebhookError) -> UserID? {
            guard let metadata = try optionalObject("metadata"), let user = try metadata.optionalString("abctl_user_id"), !user.isEmpty else { return nil }
            return UserID(user)
        }

        /// On an invoice: the subscription details' metadata (both API shapes), else the
        /// invoice's own metadata.
        func invoiceUser() throws(WebhookError) -> UserID? {
            if let parent = try optionalObject("parent"), let details = try parent.optionalObject("subscription_details"), let user = try details.user() { return user }
            if let details = try optionalObject("subscription_details"), let user = try details.user() { return user }
            return try user()
        }

        /// The charge and payment intent an invoice was paid with (older API versions name them
        /// on the invoice; newer ones in `payments`).
        func paymentKeys() throws(WebhookError) -> [String] {
            var keys: [String] = []
            if let charge = try optionalID("charge") { keys.append("stripe:charge:" + charge) }
            if let intent = try optionalID("payment_intent") { keys.append("stripe:payment_intent:" + intent) }
            for item in try listItems("payments") {
                guard let payment = try item.optionalObject("payment") else { continue }
                if let charge = try payment.optionalID("charge") { keys.append("stripe:charge:" + charge) }
                if let intent = try payment.optionalID("payment_intent") { keys.append("stripe:payment_intent:" + intent) }
            }
            var seen = Set<String>()
            return keys.filter { seen.insert($0).inserted }
        }

        /// A price's `lookup_key` (set it to the products.json product id), else its id.
        static func product(ofPrice price: Object?) throws(WebhookError) -> String? {
            guard let price else { return nil }
            if let key = try price.optionalString("lookup_key"), !key.isEmpty { return key }
            return try price.optionalString("id")
        }

        /// The first subscription item's price.
        func subscriptionProduct() throws(WebhookError) -> String? {
            try Self.product(ofPrice: try listItems("items").first?.optionalObject("price"))
        }

        /// The first invoice line's price (`price`, or `pricing.price_details.price` from 2025-03-31).
        func invoiceProduct() throws(WebhookError) -> String? {
            guard let line = try listItems("lines").first else { return nil }
            if let price = try line.optionalObject("price") { return try Self.product(ofPrice: price) }
            if let pricing = try line.optionalObject("pricing"), let details = try pricing.optionalObject("price_details") {
                return try details.optionalID("price")
            }
            return nil
        }
    }
}

/// Stripe's minor units (docs.stripe.com/currencies): most currencies have two decimals;
/// zero-decimal ones are not divided; three-decimal ones are divided by 1000.
public enum StripeCurrency {
    static let zeroDecimal: Set<String> = ["BIF", "CLP", "DJF", "GNF", "JPY", "KMF", "KRW", "MGA", "PYG", "RWF", "UGX", "VND", "VUV", "XAF", "XOF", "XPF"]
    static let threeDecimal: Set<String> = ["BHD", "JOD", "KWD", "OMR", "TND"]

    /// How many minor units make one unit of `currency` (uppercase ISO 4217).
    public static func divisor(_ currency: String) -> Double {
        zeroDecimal.contains(currency) ? 1 : threeDecimal.contains(currency) ? 1000 : 100
    }

    static func major(_ minor: Int64, _ currency: String, field: String) throws(WebhookError) -> Double {
        guard currency.utf8.count == 3, currency.utf8.allSatisfy({ $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }) else {
            throw .invalid(field, "'\(currency)' is not a three-letter currency code")
        }
        return Double(minor) / divisor(currency)
    }
}
