import Events
import ExperimentDefinitions
import Foundation
import Testing
@testable import Webhooks

/// `GooglePlayMapping` on pushes and purchases in Google's documented shapes.
struct GooglePlayMappingTests {
    static func push(_ notification: String, package: String = "com.example.chorus") -> [UInt8] {
        let data = Data(#"{"version":"1.0","packageName":"\#(package)","eventTimeMillis":"1764590400123",\#(notification)}"#.utf8).base64EncodedString()
        return Array(#"{"message":{"data":"\#(data)","messageId":"m1","publishTime":"2026-12-01T10:00:00Z"},"subscription":"s"}"#.utf8)
    }

    static func purchase(phase: String, start: String = "2026-12-01T10:00:00Z", expiry: String = "2026-12-08T10:00:00.500Z", account: String? = "acct-1") -> [(String, JSONValue)] {
        let ids = account.map { #"{"obfuscatedExternalAccountId":"\#($0)"}"# } ?? "{}"
        let text = #"{"startTime":"\#(start)","externalAccountIdentifiers":\#(ids),"lineItems":[{"productId":"chorus.plus.annual","expiryTime":"\#(expiry)","offerPhase":{"\#(phase)":{}},"autoRenewingPlan":{"recurringPrice":{"currencyCode":"JPY","units":"1200","nanos":0}}}]}"#
        return GooglePushVerifier.object(Array(text.utf8))!
    }

    static let lookups: GooglePlayMapping.Lookups = (trialAwaitingConversion: { _ in true }, payment: { _ in nil },
                                                     userForStoreAccount: { $0 == "acct-1" ? "user-1" : nil })

    @Test func aPurchaseInAFreeTrialPhaseIsATrialWithItsDays() throws {
        let notification = try GooglePlayMapping.parse(Self.push(#""subscriptionNotification":{"version":"1.0","notificationType":4,"purchaseToken":"tok"}"#), packageName: "com.example.chorus")
        #expect(notification == .init(messageID: "m1", eventTimeMilliseconds: 1_764_590_400_123, kind: .subscription(type: 4, purchaseToken: "tok")))
        let trial = try GooglePlayMapping.map(notification, purchase: Self.purchase(phase: "freeTrial"), lookups: Self.lookups)
        #expect(trial == .event(MappedEvent(eventID: "m1", type: .trialStarted, userID: "user-1", timestampMilliseconds: 1_764_590_400_123,
                                            productID: "chorus.plus.annual", trialDays: 7, store: .googlePlay)))
        let paid = try GooglePlayMapping.map(notification, purchase: Self.purchase(phase: "basePrice", account: "free-text-id"), lookups: Self.lookups)
        #expect(paid == .event(MappedEvent(eventID: "m1", type: .purchased, userID: "free-text-id", timestampMilliseconds: 1_764_590_400_123,
                                           revenue: 1200, currency: "JPY", productID: "chorus.plus.annual", store: .googlePlay,
                                           unmatchedStoreAccount: true),   // no exposure named free-text-id
                               remember: LedgerEntry(keys: ["googleplay:tok"], payment: LedgerPayment(userID: "free-text-id", currency: "JPY", amountMinor: 1_200_000_000))))
    }

    @Test func aVoidedPurchaseRefundsTheLastPaymentKept() throws {
        let notification = try GooglePlayMapping.parse(Self.push(#""voidedPurchaseNotification":{"purchaseToken":"tok","orderId":"GPA.1","productType":1,"refundType":1}"#), packageName: "com.example.chorus")
        var lookups = Self.lookups
        lookups.payment = { $0 == "googleplay:tok" ? LedgerPayment(userID: "u", currency: "EUR", amountMinor: 59_990_000) : nil }
        #expect(try GooglePlayMapping.map(notification, purchase: nil, lookups: lookups)
                == .event(MappedEvent(eventID: "m1", type: .refunded, userID: "u", timestampMilliseconds: 1_764_590_400_123, revenue: -59.99, currency: "EUR", store: .googlePlay),
                          remember: LedgerEntry(keys: ["googleplay:tok"], payment: LedgerPayment(userID: "u", currency: "EUR", amountMinor: 59_990_000, refundedMinor: 59_990_000))))
        // Refunded already (a second voided purchase, or a revocation before it): counted once.
        var refunded = lookups
        refunded.payment = { _ in LedgerPayment(userID: "u", currency: "EUR", amountMinor: 59_990_000, refundedMinor: 59_990_000) }
        #expect(try GooglePlayMapping.map(notification, purchase: nil, lookups: refunded) == .ignored(type: "voidedPurchaseNotification", reason: .alreadyCounted))
        #expect(try GooglePlayMapping.map(notification, purchase: nil, lookups: Self.lookups) == .ignored(type: "voidedPurchaseNotification", reason: .noUser))
    }

    @Test func anotherPackageIsRefusedAndOtherTypesIgnored() throws {
        #expect(throws: WebhookError.self) { try GooglePlayMapping.parse(Self.push(#""testNotification":{}"#, package: "com.other"), packageName: "com.example.chorus") }
        let priceChange = try GooglePlayMapping.parse(Self.push(#""subscriptionNotification":{"notificationType":8,"purchaseToken":"tok"}"#), packageName: "com.example.chorus")
        #expect(!priceChange.needsPurchase)
        #expect(try GooglePlayMapping.map(priceChange, purchase: nil, lookups: Self.lookups) == .ignored(type: "subscriptionNotification.8", reason: .type))
    }
}
