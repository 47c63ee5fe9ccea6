import ExperimentDefinitions
import Testing
@testable import Webhooks

/// RevenueCat's word for the subscription's later life, on the event bodies RevenueCat documents
/// (its webhook samples for each type, fields as it sends them): `UNCANCELLATION`, `BILLING_ISSUE`,
/// a `CANCELLATION` for a billing error, `EXPIRATION` for each `expiration_reason`, `PRODUCT_CHANGE`.
@Suite struct RevenueCatLifeTests {
    /// A documented sample's common fields, with `fields` added (and overriding).
    static func body(_ fields: String) -> [UInt8] {
        Array(#"""
        {"api_version":"1.0","event":{"aliases":["$RCAnonymousID:8069238d6049ce87cc529853916d624c"],"app_id":"1234567890",
         "app_user_id":"user-42","commission_percentage":null,"country_code":"US","currency":null,"entitlement_id":null,
         "entitlement_ids":["pro"],"environment":"PRODUCTION","event_timestamp_ms":1658726378679,"expiration_at_ms":1659331178000,
         "id":"CD489E0E-5D41-4A46-9F4A-5E9E6E8D3A7B","is_family_share":false,"offer_code":null,"original_app_user_id":"user-42",
         "original_transaction_id":"1530648507000","period_type":"NORMAL","presented_offering_id":null,"price":null,
         "price_in_purchased_currency":null,"product_id":"com.chorus.plus.monthly","purchased_at_ms":1657607288000,"store":"APP_STORE",
         "subscriber_attributes":{},"takehome_percentage":null,"tax_percentage":null,"transaction_id":"170000869511114",\#(fields)}}
        """#.utf8)
    }

    static func mapped(_ fields: String) throws -> MappedEvent {
        guard case .event(let event, _) = try RevenueCatMapping.map(body(fields)) else { throw WebhookError(.malformed, code: "x", "not mapped") }
        return event
    }

    @Test func anUndoneCancelIsUncancelled() throws {
        let event = try Self.mapped(#""type":"UNCANCELLATION""#)
        #expect(event.type == .uncancelled && event.userID == "user-42" && event.productID == "com.chorus.plus.monthly")
        #expect(event.timestampMilliseconds == 1_658_726_378_679, "the event's time, not the purchase's")
        #expect(event.store == .appStore && event.revenue == nil)
    }

    @Test func aBillingIssueKeepsItsGrace() throws {
        let event = try Self.mapped(#""type":"BILLING_ISSUE","grace_period_expiration_at_ms":1659331178000"#)
        #expect(event.type == .billingIssue && event.graceUntilMilliseconds == 1_659_331_178_000)
        #expect(try Self.mapped(#""type":"BILLING_ISSUE","grace_period_expiration_at_ms":null"#).graceUntilMilliseconds == nil)
    }

    /// A cancel the store makes because the payment failed is a billing issue, never the person's cancel.
    @Test func aCancelForABillingErrorIsABillingIssue() throws {
        #expect(try Self.mapped(#""type":"CANCELLATION","cancel_reason":"BILLING_ERROR""#).type == .billingIssue)
        for reason in ["UNSUBSCRIBE", "DEVELOPER_INITIATED", "PRICE_INCREASE", "CUSTOMER_SUPPORT", "UNKNOWN"] {
            #expect(try Self.mapped(#""type":"CANCELLATION","cancel_reason":"\#(reason)""#).type == .cancelled, "\(reason)")
        }
    }

    @Test(arguments: [("UNSUBSCRIBE", ExpiryReason.voluntary), ("BILLING_ERROR", .billing), ("PRICE_INCREASE", .priceIncrease),
                      ("SUBSCRIPTION_PAUSED", .paused), ("DEVELOPER_INITIATED", .other), ("UNKNOWN", .other)])
    func anExpirationKeepsItsReason(_ rc: String, _ reason: ExpiryReason) throws {
        let event = try Self.mapped(#""type":"EXPIRATION","expiration_reason":"\#(rc)""#)
        #expect(event.type == .expired && event.reason == reason && event.timestampMilliseconds == 1_658_726_378_679)
    }

    @Test func aProductChangeNamesTheNewProduct() throws {
        let event = try Self.mapped(#""type":"PRODUCT_CHANGE","new_product_id":"com.chorus.plus.annual""#)
        #expect(event.type == .planChanged && event.productID == "com.chorus.plus.annual" && event.previousProductID == "com.chorus.plus.monthly")
        let unnamed = try Self.mapped(#""type":"PRODUCT_CHANGE""#)
        #expect(unnamed.productID == "unknown" && unnamed.previousProductID == "com.chorus.plus.monthly")
    }

    @Test(arguments: ["SUBSCRIPTION_PAUSED", "SUBSCRIPTION_EXTENDED", "TEMPORARY_ENTITLEMENT_GRANT", "INVOICE_ISSUANCE", "TEST"])
    func typesAbctlHasNoEventForAreIgnored(_ type: String) throws {
        #expect(try RevenueCatMapping.map(Self.body(#""type":"\#(type)""#)) == .ignored(type: type, reason: .type))
    }
}
