import Events
import ExperimentDefinitions
import Foundation
import Testing
@testable import Webhooks

/// `GooglePlayMapping` on the subscription's later life: who cancelled (`canceledStateContext`),
/// grace and hold, restart, pause, revocation, expiry, and a purchase linked to an earlier token.
struct GooglePlayLifeTests {
    static func notification(_ type: Int) throws -> GooglePlayMapping.Notification {
        try GooglePlayMapping.parse(GooglePlayMappingTests.push(#""subscriptionNotification":{"version":"1.0","notificationType":\#(type),"purchaseToken":"tok"}"#),
                                    packageName: "com.example.chorus")
    }

    static func purchase(_ extra: String = "", item: String = "") -> [(String, JSONValue)] {
        let text = #"{"startTime":"2026-11-01T10:00:00Z","externalAccountIdentifiers":{"obfuscatedExternalAccountId":"acct-1"},"lineItems":[{"productId":"chorus.plus.monthly","expiryTime":"2026-12-17T10:00:00Z","autoRenewingPlan":{"recurringPrice":{"currencyCode":"USD","units":"9","nanos":990000000}}\#(item)}]\#(extra)}"#
        return GooglePushVerifier.object(Array(text.utf8))!
    }

    static func context(_ key: String) -> String { #","canceledStateContext":{"\#(key)":{}}"# }

    static func map(_ type: Int, _ purchase: [(String, JSONValue)], ledger: [String: LedgerPayment] = [:]) throws -> WebhookOutcome {
        var lookups = GooglePlayMappingTests.lookups
        lookups.trialAwaitingConversion = { _ in false }
        lookups.payment = { ledger[$0] }
        return try GooglePlayMapping.map(try notification(type), purchase: purchase, lookups: lookups)
    }

    static func event(_ outcome: WebhookOutcome) -> MappedEvent? {
        if case .event(let event, _) = outcome { return event }
        return nil
    }

    @Test func aCancelIsThePersonsOrTheStoresForAFailedPayment() throws {
        #expect(Self.event(try Self.map(3, Self.purchase(Self.context("userInitiatedCancellation"))))?.type == .cancelled)
        #expect(Self.event(try Self.map(3, Self.purchase()))?.type == .cancelled, "no context: the person's, as before")
        #expect(Self.event(try Self.map(3, Self.purchase(Self.context("systemInitiatedCancellation"))))?.type == .billingIssue)
        #expect(try Self.map(3, Self.purchase(Self.context("developerInitiatedCancellation"))) == .ignored(type: "subscriptionNotification.3", reason: .type))
        #expect(try Self.map(3, Self.purchase(Self.context("replacementCancellation"))) == .ignored(type: "subscriptionNotification.3", reason: .type))
    }

    @Test func graceHoldRestartAndPause() throws {
        let grace = try #require(Self.event(try Self.map(6, Self.purchase())))
        #expect(grace.type == .billingIssue && grace.graceUntilMilliseconds == 1_797_501_600_000 && grace.productID == "chorus.plus.monthly")
        let hold = try #require(Self.event(try Self.map(5, Self.purchase())))
        #expect(hold.type == .billingIssue && hold.graceUntilMilliseconds == nil)
        #expect(Self.event(try Self.map(7, Self.purchase()))?.type == .uncancelled)
        let paused = try #require(Self.event(try Self.map(10, Self.purchase())))
        #expect(paused.type == .expired && paused.reason == .paused)
    }

    @Test(arguments: [("userInitiatedCancellation", ExpiryReason.voluntary), ("systemInitiatedCancellation", .billing),
                      ("developerInitiatedCancellation", .other)])
    func anExpiryTakesItsReasonFromWhoCancelled(_ context: String, _ reason: ExpiryReason) throws {
        let expired = try #require(Self.event(try Self.map(13, Self.purchase(Self.context(context)))))
        #expect(expired.type == .expired && expired.reason == reason)
    }

    @Test func anExpiryByReplacementIsNoEnd() throws {
        #expect(try Self.map(13, Self.purchase(Self.context("replacementCancellation"))) == .ignored(type: "subscriptionNotification.13", reason: .type))
        #expect(Self.event(try Self.map(13, Self.purchase()))?.reason == .other)
    }

    @Test func aRevocationRefundsTheKeptPaymentOnceAndEnds() throws {
        let kept = LedgerPayment(userID: "user-1", currency: "USD", amountMinor: 9_990_000)
        guard case .event(let refund, let remember) = try Self.map(12, Self.purchase(), ledger: ["googleplay:tok": kept]) else { Issue.record("not mapped"); return }
        #expect(refund.type == .refunded && refund.revenue == -9.99 && refund.eventID == "m1" && refund.store == .googlePlay)
        #expect(refund.companions.map(\.type) == [.expired] && refund.companions.first?.reason == .other && refund.companions.first?.eventID == "m1:expired")
        #expect(refund.companions.first?.store == .googlePlay)
        #expect(remember?.payment.refundedMinor == 9_990_000)
        var refunded = kept
        refunded.refundedMinor = kept.amountMinor
        let again = try #require(Self.event(try Self.map(12, Self.purchase(), ledger: ["googleplay:tok": refunded])))
        #expect(again.type == .expired && again.reason == .other && again.companions.isEmpty)
        #expect(Self.event(try Self.map(12, Self.purchase()))?.type == .expired, "no payment kept: the end alone")
    }

    @Test func aLinkedPurchaseIsAnUndoneCancelOrAPlanChange() throws {
        let earlier = ["googleplay:old": LedgerPayment(userID: "user-1", currency: "USD", amountMinor: 59_990_000)]
        let again = Self.purchase(#","linkedPurchaseToken":"old""#)
        #expect(Self.event(try Self.map(4, again, ledger: earlier))?.type == .uncancelled)
        let deferred = Self.purchase(#","linkedPurchaseToken":"old""#, item: #","itemReplacement":{"productId":"chorus.plus.annual","replacementMode":"DEFERRED"}"#)
        let change = try #require(Self.event(try Self.map(4, deferred, ledger: earlier)))
        #expect(change.type == .planChanged && change.productID == "chorus.plus.monthly" && change.previousProductID == "chorus.plus.annual"
                && change.effective == .nextRenewal)
        let prorated = Self.purchase(#","linkedPurchaseToken":"old""#, item: #","itemReplacement":{"productId":"chorus.plus.annual","replacementMode":"CHARGE_PRORATED_PRICE"}"#)
        #expect(Self.event(try Self.map(4, prorated, ledger: earlier))?.effective == .now)
        // Another user's token, or one abctl never kept a payment for: a plain purchase.
        let other = ["googleplay:old": LedgerPayment(userID: "someone-else", currency: "USD", amountMinor: 1)]
        #expect(Self.event(try Self.map(4, again, ledger: other))?.type == .purchased)
        #expect(Self.event(try Self.map(4, again))?.type == .purchased)
    }
}
