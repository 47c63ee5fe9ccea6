import ExperimentDefinitions
import Testing
@testable import Webhooks

/// `AppStoreMapping` on the subscription's later life, without signatures (the signed
/// notifications, judged by Apple's library, are in ServerTests' APIAppStoreWebhookTests).
@Suite struct AppStoreLifeTests {
    static func mapped(_ type: String, _ subtype: String? = nil, transaction: [(String, JSONValue)] = AppStoreMappingTests.transaction(),
                       renewal: [(String, JSONValue)]? = nil) throws -> MappedEvent {
        let outcome = try AppStoreMapping.map(payload: AppStoreMappingTests.payload(type, subtype), transaction: transaction, renewal: renewal,
                                              trialAwaitingConversion: { _ in false })
        guard case .event(let event, _) = outcome else { throw WebhookError(.malformed, code: "x", "not mapped: \(outcome)") }
        return event
    }

    @Test func autoRenewBackOnIsUncancelled() throws {
        let event = try Self.mapped("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_ENABLED")
        #expect(event.type == .uncancelled && event.revenue == nil && event.store == .appStore)
    }

    @Test func aFailedRenewalIsABillingIssueWithItsGrace() throws {
        let renewal: [(String, JSONValue)] = [("autoRenewProductId", .string("chorus.plus.monthly")), ("gracePeriodExpiresDate", .number(1_765_382_400_000))]
        let event = try Self.mapped("DID_FAIL_TO_RENEW", "GRACE_PERIOD", renewal: renewal)
        #expect(event.type == .billingIssue && event.graceUntilMilliseconds == 1_765_382_400_000 && event.revenue == nil)
        #expect(try Self.mapped("DID_FAIL_TO_RENEW").graceUntilMilliseconds == nil)
    }

    @Test(arguments: [("VOLUNTARY", ExpiryReason.voluntary), ("BILLING_RETRY", .billing), ("PRICE_INCREASE", .priceIncrease),
                      ("PRODUCT_NOT_FOR_SALE", .productUnavailable)])
    func anExpiryKeepsItsReason(_ subtype: String, _ reason: ExpiryReason) throws {
        let event = try Self.mapped("EXPIRED", subtype)
        #expect(event.type == .expired && event.reason == reason && event.revenue == nil)
    }

    @Test func aRevocationEndsForAnotherReason() throws {
        let event = try Self.mapped("REVOKE")
        #expect(event.type == .expired && event.reason == .other)
    }

    @Test func anUpgradeIsAPlanChangeNowAndItsCharge() throws {
        let event = try Self.mapped("DID_CHANGE_RENEWAL_PREF", "UPGRADE")
        #expect(event.type == .planChanged && event.effective == .now && event.productID == "chorus.plus.monthly" && event.revenue == nil)
        #expect(event.companions.count == 1)
        let charge = try #require(event.companions.first)
        #expect(charge.type == .renewed && charge.revenue == 9.99 && charge.currency == "EUR" && charge.eventID == "n-1:renewed")
        #expect(charge.userID == event.userID && charge.store == .appStore && charge.productID == "chorus.plus.monthly")
    }

    @Test func aDowngradeTakesTheRenewalsProductFromTheNextRenewal() throws {
        let renewal: [(String, JSONValue)] = [("autoRenewProductId", .string("chorus.plus.weekly"))]
        let event = try Self.mapped("DID_CHANGE_RENEWAL_PREF", "DOWNGRADE", renewal: renewal)
        #expect(event.type == .planChanged && event.effective == .nextRenewal && event.productID == "chorus.plus.weekly"
                && event.previousProductID == "chorus.plus.monthly" && event.companions.isEmpty)
        #expect(throws: WebhookError.self) { try Self.mapped("DID_CHANGE_RENEWAL_PREF", "DOWNGRADE") }
        let undone = try Self.mapped("DID_CHANGE_RENEWAL_PREF")
        #expect(undone.type == .planChanged && undone.productID == "chorus.plus.monthly" && undone.effective == .nextRenewal)
    }

    @Test(arguments: ["GRACE_PERIOD_EXPIRED", "PRICE_INCREASE", "RENEWAL_EXTENDED", "OFFER_REDEEMED", "TEST"])
    func typesAbctlHasNoEventForAreIgnored(_ type: String) throws {
        let outcome = try AppStoreMapping.map(payload: AppStoreMappingTests.payload(type), transaction: AppStoreMappingTests.transaction(),
                                              trialAwaitingConversion: { _ in false })
        #expect(outcome == .ignored(type: type, reason: .type))
    }
}
