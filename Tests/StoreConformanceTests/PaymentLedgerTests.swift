import Events
import Testing

/// The payment ledger (Stripe refunds found through a kept charge, Play voided purchases through a
/// kept token), the same on every store.
struct PaymentLedgerTests {
    @Test(arguments: storeFactories)
    func keepsAPaymentUnderEachKeyAndRefundsOnlyRise(_ factory: StoreFactory) async throws {
        try await factory.withStore { (store: any EventStore) async throws in
            #expect(try store.payment(key: "stripe:charge:ch_1") == nil)
            let paid = LedgerPayment(userID: "u\u{E9}", currency: "JPY", amountMinor: 1200)
            try store.remember(paid, keys: ["stripe:charge:ch_1", "stripe:payment_intent:pi_\"1\\"])
            #expect(try store.payment(key: "stripe:charge:ch_1") == paid)
            #expect(try store.payment(key: "stripe:payment_intent:pi_\"1\\") == paid)
            // A refund raises what was refunded; a late, smaller figure never lowers it.
            var refunded = paid
            refunded.refundedMinor = 700
            try store.remember(refunded, keys: ["stripe:charge:ch_1"])
            refunded.refundedMinor = 300
            try store.remember(refunded, keys: ["stripe:charge:ch_1"])
            #expect(try store.payment(key: "stripe:charge:ch_1")?.refundedMinor == 700)
            #expect(try store.payment(key: "stripe:payment_intent:pi_\"1\\")?.refundedMinor == 0)
            // The latest payment replaces the amount (a Play renewal under the same token).
            try store.remember(LedgerPayment(userID: "u\u{E9}", currency: "EUR", amountMinor: 4_990_000), keys: ["googleplay:tok"])
            try store.remember(LedgerPayment(userID: "u\u{E9}", currency: "EUR", amountMinor: 5_990_000), keys: ["googleplay:tok"])
            #expect(try store.payment(key: "googleplay:tok") == LedgerPayment(userID: "u\u{E9}", currency: "EUR", amountMinor: 5_990_000))
            // Keys are compared by their bytes.
            #expect(try store.payment(key: "googleplay:TOK") == nil)
        }
    }
}
