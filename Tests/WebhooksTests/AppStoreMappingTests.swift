import ExperimentDefinitions
import Testing
@testable import Webhooks

/// The App Store notification → event table of `AppStoreMapping`, without signatures.
@Suite struct AppStoreMappingTests {
    static func payload(_ type: String, _ subtype: String? = nil) -> [(String, JSONValue)] {
        var members: [(String, JSONValue)] = [("notificationType", .string(type)), ("notificationUUID", .string("n-1")),
                                              ("signedDate", .number(1_764_000_000_123))]
        if let subtype { members.append(("subtype", .string(subtype))) }
        return members
    }

    static func transaction(offer: String? = nil, price: Double? = 9990, user: String? = "u-1") -> [(String, JSONValue)] {
        var members: [(String, JSONValue)] = [("productId", .string("chorus.plus.monthly")), ("currency", .string("EUR"))]
        if let price { members.append(("price", .number(price))) }
        if let offer { members.append(("offerDiscountType", .string(offer))) }
        if let user { members.append(("appAccountToken", .string(user))) }
        return members
    }

    static func mapped(_ payload: [(String, JSONValue)], _ transaction: [(String, JSONValue)]?, trialOpen: Bool = false) throws -> WebhookOutcome {
        try AppStoreMapping.map(payload: payload, transaction: transaction, trialAwaitingConversion: { _ in trialOpen })
    }

    @Test func table() throws {
        func type(_ outcome: WebhookOutcome) -> EventType? {
            if case .event(let e, _) = outcome { return e.type } else { return nil }
        }
        #expect(type(try Self.mapped(Self.payload("SUBSCRIBED", "INITIAL_BUY"), Self.transaction(offer: "FREE_TRIAL"))) == .trialStarted)
        #expect(type(try Self.mapped(Self.payload("SUBSCRIBED", "RESUBSCRIBE"), Self.transaction(offer: "PAY_AS_YOU_GO"))) == .purchased)
        #expect(type(try Self.mapped(Self.payload("DID_RENEW"), Self.transaction(), trialOpen: true)) == .converted)
        #expect(type(try Self.mapped(Self.payload("DID_RENEW"), Self.transaction(), trialOpen: false)) == .renewed)
        #expect(type(try Self.mapped(Self.payload("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED"), Self.transaction())) == .cancelled)
        #expect(type(try Self.mapped(Self.payload("REFUND"), Self.transaction())) == .refunded)
        #expect(type(try Self.mapped(Self.payload("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_ENABLED"), Self.transaction())) == .uncancelled)
        #expect(type(try Self.mapped(Self.payload("EXPIRED", "VOLUNTARY"), Self.transaction())) == .expired)
        #expect(try Self.mapped(Self.payload("GRACE_PERIOD_EXPIRED"), nil) == .ignored(type: "GRACE_PERIOD_EXPIRED", reason: .type))
    }

    @Test func fields() throws {
        guard case .event(let refund, _) = try Self.mapped(Self.payload("REFUND"), Self.transaction()) else { Issue.record("not mapped"); return }
        #expect(refund == MappedEvent(eventID: "n-1", type: .refunded, userID: "u-1", timestampMilliseconds: 1_764_000_000_123,
                                                     revenue: -9.99, currency: "EUR", productID: "chorus.plus.monthly", store: .appStore,
                                                     unmatchedStoreAccount: true))   // no exposure named u-1
        guard case .event(let trial, _) = try Self.mapped(Self.payload("SUBSCRIBED"), Self.transaction(offer: "FREE_TRIAL", price: 0)) else { Issue.record("not mapped"); return }
        #expect(trial.revenue == nil)
    }

    @Test func refusals() {
        #expect(throws: WebhookError.self) { try Self.mapped(Self.payload("SUBSCRIBED"), Self.transaction(user: nil)) }
        #expect(throws: WebhookError.self) { try Self.mapped(Self.payload("REFUND"), nil) }
        #expect(throws: WebhookError.self) { try Self.mapped([("notificationUUID", .string("n"))], Self.transaction()) }
    }
}
