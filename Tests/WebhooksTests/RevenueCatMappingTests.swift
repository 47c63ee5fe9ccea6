import ExperimentDefinitions
import Testing
@testable import Webhooks

@Suite struct RevenueCatMappingTests {
    func map(_ event: String) throws -> WebhookOutcome {
        try RevenueCatMapping.map(Array(#"{"api_version":"1.0","event":\#(event)}"#.utf8))
    }

    func mapped(_ event: String) throws -> MappedEvent {
        guard case .event(let e, _) = try map(event) else { Issue.record("expected an event"); throw WebhookError(.malformed, code: "x", "x") }
        return e
    }

    let base = #""id":"rc-1","app_user_id":"u1","product_id":"chorus.plus.annual","purchased_at_ms":1764583200000,"event_timestamp_ms":1764583260000"#

    @Test(arguments: [
        (#""type":"INITIAL_PURCHASE","period_type":"TRIAL","price":0"#, "trial_started"),
        (#""type":"INITIAL_PURCHASE","period_type":"NORMAL","price":59.99"#, "purchased"),
        (#""type":"INITIAL_PURCHASE","period_type":"INTRO","price":29.99"#, "purchased"),
        (#""type":"NON_RENEWING_PURCHASE","price":4.99"#, "purchased"),
        (#""type":"RENEWAL","is_trial_conversion":true,"price":59.99"#, "converted"),
        (#""type":"RENEWAL","is_trial_conversion":false,"price":59.99"#, "renewed"),
        (#""type":"RENEWAL","price":59.99"#, "renewed"),
        (#""type":"CANCELLATION","cancel_reason":"UNSUBSCRIBE","price":59.99"#, "cancelled"),
        (#""type":"CANCELLATION","cancel_reason":"CUSTOMER_SUPPORT","price":-59.99"#, "refunded"),
    ])
    func mapsTypes(fields: String, expected: String) throws {
        let e = try mapped("{\(base),\(fields)}")
        #expect(e.type.name == expected)
        #expect(e.eventID == "rc-1")
        #expect(e.userID == "u1")
        #expect(e.productID == "chorus.plus.annual")
    }

    @Test func paymentsUsePurchaseTimeAndCancellationsTheEventTime() throws {
        #expect(try mapped(#"{\#(base),"type":"RENEWAL","price":1}"#).timestampMilliseconds == 1764583200000)
        #expect(try mapped(#"{\#(base),"type":"CANCELLATION"}"#).timestampMilliseconds == 1764583260000)
        #expect(try mapped(#"{\#(base),"type":"CANCELLATION","price":-5}"#).timestampMilliseconds == 1764583260000)
        // Each falls back to the other field when its own is missing.
        #expect(try mapped(#"{"id":"a","app_user_id":"u","type":"RENEWAL","event_timestamp_ms":5}"#).timestampMilliseconds == 5)
        #expect(try mapped(#"{"id":"a","app_user_id":"u","type":"CANCELLATION","purchased_at_ms":7}"#).timestampMilliseconds == 7)
    }

    @Test func revenueOnlyOnPaymentsAndRefunds() throws {
        let trial = try mapped(#"{\#(base),"type":"INITIAL_PURCHASE","period_type":"TRIAL","price":0}"#)
        #expect(trial.revenue == nil && trial.currency == nil)
        let converted = try mapped(#"{\#(base),"type":"RENEWAL","is_trial_conversion":true,"price":59.99}"#)
        #expect(converted.revenue == 59.99 && converted.currency == "USD")
        let refund = try mapped(#"{\#(base),"type":"CANCELLATION","price":-59.99}"#)
        #expect(refund.revenue == -59.99)
        let cancel = try mapped(#"{\#(base),"type":"CANCELLATION","price":59.99}"#)
        #expect(cancel.revenue == nil)
    }

    @Test(arguments: ["TEST", "SUBSCRIPTION_PAUSED", "SUBSCRIPTION_EXTENDED", "SUBSCRIBER_ALIAS"])
    func otherTypesAreIgnored(type: String) throws {
        #expect(try map(#"{"type":"\#(type)","id":"x"}"#) == .ignored(type: type, reason: .type))
    }

    @Test func usesOriginalAppUserIDWhenAppUserIDIsMissing() throws {
        #expect(try mapped(#"{"id":"a","original_app_user_id":"orig","type":"RENEWAL","purchased_at_ms":1}"#).userID == "orig")
    }

    func failure(_ event: String) -> WebhookError? {
        do {
            _ = try map(event)
            return nil
        } catch {
            return error as? WebhookError
        }
    }

    @Test func problemsNameTheField() throws {
        #expect(failure(#"{"type":"RENEWAL","app_user_id":"u","purchased_at_ms":1}"#)?.field == "event.id")
        #expect(failure(#"{"type":"RENEWAL","id":"a","purchased_at_ms":1}"#)?.field == "event.app_user_id")
        #expect(failure(#"{"type":"RENEWAL","id":"a","app_user_id":"u"}"#)?.field == "event.purchased_at_ms")
        #expect(failure(#"{"type":"RENEWAL","id":"a","app_user_id":"u","purchased_at_ms":"1"}"#)?.field == "event.purchased_at_ms")
        #expect(failure(#"{"type":"RENEWAL","id":"a","app_user_id":"u","purchased_at_ms":"1"}"#)?.kind == .unprocessable)
        #expect(failure(#"{"id":"a"}"#)?.field == "event.type")
        #expect(failure(#"{"id":"a"}"#)?.kind == .malformed)
        #expect(failure(#"[]"#)?.field == "event")
    }
}
