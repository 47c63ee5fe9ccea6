import Events
import ExperimentDefinitions
import Testing
@testable import Webhooks

/// `StripeMapping` on the subscription's later life: a failed invoice, a cancel undone (either
/// field), a price change, and a deletion for each reason Stripe gives.
struct StripeLifeTests {
    static let user = #""metadata":{"abctl_user_id":"u1"}"#
    static let annual = #""items":{"object":"list","data":[{"price":{"id":"price_a","lookup_key":"chorus.plus.annual"}}]}"#
    static let monthly = #""items":{"object":"list","data":[{"price":{"id":"price_m","lookup_key":"chorus.plus.monthly"}}]}"#

    static func event(_ outcome: WebhookOutcome) -> MappedEvent? {
        if case .event(let event, _) = outcome { return event }
        return nil
    }

    static func updated(_ now: String, previous: String) throws -> WebhookOutcome {
        try StripeMappingTests.map(StripeMappingTests.body("customer.subscription.updated", "{\(now),\(user),\(annual)}", previous: previous))
    }

    @Test func aFailedInvoiceIsABillingIssue() throws {
        let invoice = #"{"id":"in_2","amount_paid":0,"amount_due":999,"currency":"usd","billing_reason":"subscription_cycle","parent":{"subscription_details":{\#(Self.user)}}}"#
        let event = try #require(Self.event(try StripeMappingTests.map(StripeMappingTests.body("invoice.payment_failed", invoice))))
        #expect(event.type == .billingIssue && event.userID == "u1" && event.revenue == nil && event.timestampMilliseconds == 1_764_590_400_000)
        #expect(try StripeMappingTests.map(StripeMappingTests.body("invoice.payment_failed", #"{"id":"in_3","amount_due":999,"currency":"usd"}"#))
                == .ignored(type: "invoice.payment_failed", reason: .noUser))
    }

    @Test func aCancelSetOrClearedByEitherField() throws {
        #expect(Self.event(try Self.updated(#""cancel_at_period_end":true"#, previous: #"{"cancel_at_period_end":false}"#))?.type == .cancelled)
        #expect(Self.event(try Self.updated(#""cancel_at_period_end":false"#, previous: #"{"cancel_at_period_end":true}"#))?.type == .uncancelled)
        #expect(Self.event(try Self.updated(#""cancel_at":1767000000"#, previous: #"{"cancel_at":null}"#))?.type == .cancelled)
        #expect(Self.event(try Self.updated(#""cancel_at":null"#, previous: #"{"cancel_at":1767000000}"#))?.type == .uncancelled)
        // Stripe sets both fields for a cancel at the period's end; clearing both undoes it once.
        #expect(Self.event(try Self.updated(#""cancel_at_period_end":false,"cancel_at":null"#, previous: #"{"cancel_at_period_end":true,"cancel_at":1767000000}"#))?.type == .uncancelled)
        // The cancel date moved: still cancelled, nothing new.
        #expect(try Self.updated(#""cancel_at":1768000000"#, previous: #"{"cancel_at":1767000000}"#) == .ignored(type: "customer.subscription.updated", reason: .type))
    }

    @Test func aPriceChangeIsAPlanChangeNow() throws {
        let outcome = try StripeMappingTests.map(StripeMappingTests.body("customer.subscription.updated", "{\(Self.user),\(Self.monthly)}", previous: "{\(Self.annual)}"))
        let event = try #require(Self.event(outcome))
        #expect(event.type == .planChanged && event.productID == "chorus.plus.monthly" && event.previousProductID == "chorus.plus.annual" && event.effective == .now)
        let same = try StripeMappingTests.map(StripeMappingTests.body("customer.subscription.updated", "{\(Self.user),\(Self.annual)}", previous: "{\(Self.annual)}"))
        #expect(same == .ignored(type: "customer.subscription.updated", reason: .type))
    }

    @Test(arguments: [(#","cancellation_details":{"reason":"payment_failed"}"#, ExpiryReason.billing),
                      (#","cancellation_details":{"reason":"cancellation_requested","feedback":"too_expensive"}"#, .voluntary),
                      (#","cancellation_details":{"reason":"payment_disputed"}"#, .other), ("", .other)])
    func aDeletionIsAnExpiryForItsReason(_ details: String, _ reason: ExpiryReason) throws {
        let sub = #"{"id":"sub_1","status":"canceled","ended_at":1764590000,\#(Self.user)\#(details)}"#
        let event = try #require(Self.event(try StripeMappingTests.map(StripeMappingTests.body("customer.subscription.deleted", sub))))
        #expect(event.type == .expired && event.reason == reason && event.timestampMilliseconds == 1_764_590_000_000)
    }
}
