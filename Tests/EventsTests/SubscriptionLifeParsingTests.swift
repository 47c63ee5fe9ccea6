import Events
import ExperimentDefinitions
import Testing

/// The subscription's life as the stores tell it: `uncancelled`, `billing_issue` (`grace_until`),
/// `expired` (`reason`, required, one of the list) and `plan_changed` (`product_id` required,
/// `previous_product_id`, `effective`), each kept, and each bad line refused naming the field.
struct SubscriptionLifeParsingTests {
    let parser = EventParser()

    func line(_ type: String, _ extra: String) -> String {
        #"{"event_id":"e","type":"\#(type)","user_id":"u","ts":"2026-12-01T10:00:00Z"\#(extra)}"#
    }

    func rejection(_ line: String) -> EventRejection? {
        if case .failure(let r)? = parser.parse(line: line) { return r }
        return nil
    }

    @Test func eachTypeKeepsItsKeys() throws {
        let uncancelled = try #require(try parser.parse(line: line("uncancelled", #","product_id":"p","store":"app_store""#))?.get())
        #expect(uncancelled.type == .uncancelled && uncancelled.productID == "p" && uncancelled.store == .appStore)
        let billing = try #require(try parser.parse(line: line("billing_issue", #","grace_until":"2026-12-17T10:00:00Z","experiment":"x""#))?.get())
        #expect(billing.type == .billingIssue && billing.graceUntil == Timestamp(rfc3339: "2026-12-17T10:00:00Z") && billing.experiment == "x")
        for reason in ExpiryReason.allCases {
            let expired = try #require(try parser.parse(line: line("expired", #","reason":"\#(reason.rawValue)""#))?.get())
            #expect(expired.type == .expired && expired.reason == reason)
        }
        let change = try #require(try parser.parse(line: line("plan_changed", #","product_id":"annual","previous_product_id":"monthly","effective":"next_renewal""#))?.get())
        #expect(change.type == .planChanged && change.productID == "annual" && change.previousProductID == "monthly" && change.effective == .nextRenewal)
        #expect(ExpiryReason.allCases.map(\.rawValue) == ["voluntary", "billing", "price_increase", "product_unavailable", "paused", "other"])
    }

    @Test func anExpiryNeedsAReasonFromTheList() throws {
        let missing = try #require(rejection(line("expired", #","product_id":"p""#)))
        #expect(missing.field == "reason" && missing.reason == "required for expired events", "\(missing)")
        let null = try #require(rejection(line("expired", #","reason":null"#)))
        #expect(null.field == "reason", "\(null)")
        let unknown = try #require(rejection(line("expired", #","reason":"churned""#)))
        #expect(unknown.field == "reason" && unknown.more.isEmpty, "\(unknown)")
        #expect(unknown.reason == "unknown reason 'churned' (expected one of: voluntary, billing, price_increase, product_unavailable, paused, other)")
        let number = try #require(rejection(line("expired", #","reason":3"#)))
        #expect(number.field == "reason" && number.more.isEmpty, "\(number)")
    }

    @Test func aPlanChangeNeedsTheNewProduct() throws {
        for extra in [#","previous_product_id":"monthly""#, #","product_id":"""#, #","product_id":null"#] {
            let refused = try #require(rejection(line("plan_changed", extra)), "\(extra)")
            #expect(refused.field == "product_id" && refused.reason == "required for plan_changed events", "\(extra): \(refused)")
        }
        let effect = try #require(rejection(line("plan_changed", #","product_id":"annual","effective":"later""#)))
        #expect(effect.field == "effective" && effect.reason.hasPrefix("unknown effect 'later' (expected one of: now, next_renewal)"), "\(effect)")
    }

    @Test func eachKeyBelongsToItsType() throws {
        #expect(rejection(line("cancelled", #","reason":"voluntary""#))?.field == "reason")
        #expect(rejection(line("expired", #","reason":"billing","grace_until":"2026-12-17T10:00:00Z""#))?.field == "grace_until")
        #expect(rejection(line("renewed", #","previous_product_id":"p""#))?.field == "previous_product_id")
        #expect(rejection(line("billing_issue", #","grace_until":"next week""#))?.field == "grace_until")
        #expect(rejection(line("uncancelled", #","revenue":9.99"#))?.field == "revenue")
    }

    /// A webhook's event is checked by the same rules.
    @Test func aMappedEventIsHeldToTheSameRequiredKeys() {
        let at = Timestamp(rfc3339: "2026-12-01T10:00:00Z")!
        #expect(parser.validate(Event(id: "e", type: .expired, userID: "u", timestamp: at))?.field == "reason")
        #expect(parser.validate(Event(id: "e", type: .expired, userID: "u", timestamp: at, reason: .other)) == nil)
        #expect(parser.validate(Event(id: "e", type: .planChanged, userID: "u", timestamp: at, previousProductID: "m"))?.field == "product_id")
        #expect(parser.validate(Event(id: "e", type: .planChanged, userID: "u", timestamp: at, productID: "a")) == nil)
    }
}
