import Events
import Foundation
import Testing
@testable import Webhooks

/// `StripeMapping` on single events in Stripe's documented shapes: amounts in each currency's
/// minor unit, trial length, the refund's rise, and what is ignored.
struct StripeMappingTests {
    static func body(_ type: String, _ object: String, previous: String? = nil) -> [UInt8] {
        Array(#"{"id":"evt_1","object":"event","created":1764590400,"type":"\#(type)","data":{"object":\#(object)\#(previous.map { #","previous_attributes":\#($0)"# } ?? "")}}"#.utf8)
    }

    static func map(_ body: [UInt8], trial: Bool = false, ledger: [String: LedgerPayment] = [:]) throws -> WebhookOutcome {
        try StripeMapping.map(body, lookups: (trialAwaitingConversion: { _ in trial }, payment: { ledger[$0] }))
    }

    static func invoice(amount: Int, currency: String, reason: String = "subscription_create") -> [UInt8] {
        body("invoice.paid", #"{"id":"in_1","amount_paid":\#(amount),"currency":"\#(currency)","billing_reason":"\#(reason)","payment_intent":"pi_1","subscription_details":{"metadata":{"abctl_user_id":"u1"}}}"#)
    }

    @Test(arguments: [("usd", 999, 9.99), ("jpy", 1200, 1200.0), ("kwd", 2500, 2.5), ("krw", 15000, 15000.0), ("bhd", 1005, 1.005), ("eur", 1, 0.01)])
    func amountsAreInTheCurrencysMinorUnit(_ currency: String, _ minor: Int, _ major: Double) throws {
        guard case .event(let event, let remember) = try Self.map(Self.invoice(amount: minor, currency: currency)) else { Issue.record("not mapped"); return }
        #expect(event.type == .purchased)
        #expect(event.revenue == major)
        #expect(event.currency == currency.uppercased())
        #expect(remember?.keys == ["stripe:payment_intent:pi_1"])
        #expect(remember?.payment == LedgerPayment(userID: "u1", currency: currency.uppercased(), amountMinor: Int64(minor)))
    }

    @Test func aLaterInvoiceConvertsAnOpenTrialElseRenews() throws {
        guard case .event(let converted, _) = try Self.map(Self.invoice(amount: 999, currency: "usd", reason: "subscription_cycle"), trial: true),
              case .event(let renewed, _) = try Self.map(Self.invoice(amount: 999, currency: "usd", reason: "subscription_cycle"), trial: false) else {
            Issue.record("not mapped"); return
        }
        #expect(converted.type == .converted)
        #expect(renewed.type == .renewed)
    }

    @Test func aTrialCarriesTheDaysStripeGranted() throws {
        let start = 1_764_500_000
        let sub = #"{"id":"sub_1","status":"trialing","trial_start":\#(start),"trial_end":\#(start + 14 * 86_400),"metadata":{"abctl_user_id":"u1"},"items":{"data":[{"price":{"id":"price_1","lookup_key":"chorus.plus.annual"}}]}}"#
        guard case .event(let event, nil) = try Self.map(Self.body("customer.subscription.created", sub)) else { Issue.record("not mapped"); return }
        #expect(event == MappedEvent(eventID: "evt_1", type: .trialStarted, userID: "u1", timestampMilliseconds: Int64(start) * 1000,
                                     productID: "chorus.plus.annual", trialDays: 14, store: .stripe))
    }

    @Test func aRefundCountsOnlyTheRiseInAmountRefunded() throws {
        let kept = LedgerPayment(userID: "u1", currency: "JPY", amountMinor: 1200, refundedMinor: 200)
        let charge = #"{"id":"ch_1","payment_intent":"pi_1","amount_refunded":700,"currency":"jpy"}"#
        guard case .event(let event, let remember) = try Self.map(Self.body("charge.refunded", charge), ledger: ["stripe:payment_intent:pi_1": kept]) else {
            Issue.record("not mapped"); return
        }
        #expect(event.type == .refunded && event.userID == "u1" && event.revenue == -500 && event.currency == "JPY")
        #expect(remember?.payment.refundedMinor == 700)
        let again = try Self.map(Self.body("charge.refunded", charge), ledger: ["stripe:charge:ch_1": LedgerPayment(userID: "u1", currency: "JPY", amountMinor: 1200, refundedMinor: 700)])
        #expect(again == .ignored(type: "charge.refunded", reason: .alreadyCounted))
        #expect(try Self.map(Self.body("charge.refunded", charge)) == .ignored(type: "charge.refunded", reason: .noUser))
    }

    @Test func cancellationsAtPeriodEndAndImmediate() throws {
        let sub = #"{"id":"sub_1","status":"active","cancel_at_period_end":true,"canceled_at":1764590000,"metadata":{"abctl_user_id":"u1"}}"#
        guard case .event(let atEnd, _) = try Self.map(Self.body("customer.subscription.updated", sub, previous: #"{"cancel_at_period_end":false}"#)),
              case .event(let now, _) = try Self.map(Self.body("customer.subscription.deleted", sub)) else { Issue.record("not mapped"); return }
        #expect(atEnd.type == .cancelled && atEnd.timestampMilliseconds == 1_764_590_000_000)
        #expect(now.type == .expired && now.reason == .other)
        #expect(try Self.map(Self.body("customer.subscription.updated", sub, previous: #"{"items":{}}"#)) == .ignored(type: "customer.subscription.updated", reason: .type))
    }

    @Test func withoutAUserTheEventIsIgnored() throws {
        let invoice = Self.body("invoice.paid", #"{"id":"in_1","amount_paid":999,"currency":"usd","billing_reason":"subscription_create"}"#)
        #expect(try Self.map(invoice) == .ignored(type: "invoice.paid", reason: .noUser))
    }

    @Test func badShapesNameTheField() throws {
        #expect(throws: WebhookError(.malformed, code: "invalid_field", "'data.object.amount_paid' must be an integer", field: "data.object.amount_paid")) {
            try Self.map(Self.body("invoice.paid", #"{"amount_paid":"9.99","currency":"usd"}"#))
        }
        #expect(throws: WebhookError.self) { try Self.map(Array("not json".utf8)) }
    }
}
