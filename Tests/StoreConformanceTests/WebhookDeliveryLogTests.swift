import Events
import Testing

/// The webhook delivery log (a redelivery recognised before any outside call,
/// answered as the type first stored), the same on every store.
struct WebhookDeliveryLogTests {
    @Test(arguments: storeFactories)
    func keepsTheFirstDeliveryUnderItsKey(_ factory: StoreFactory) async throws {
        try await factory.withStore { (store: any EventStore) async throws in
            #expect(try store.delivery(key: "stripe:evt_1") == nil)
            try store.recordDelivery(WebhookDelivery(userID: "u\u{E9}", type: .converted), key: "stripe:evt_1")
            #expect(try store.delivery(key: "stripe:evt_1") == WebhookDelivery(userID: "u\u{E9}", type: .converted))
            // A retry mapped differently (the trial has converted since) never replaces what was first stored.
            try store.recordDelivery(WebhookDelivery(userID: "u\u{E9}", type: .renewed), key: "stripe:evt_1")
            #expect(try store.delivery(key: "stripe:evt_1")?.type == .converted)
            // Keys are compared by their bytes; vendors never share one.
            #expect(try store.delivery(key: "stripe:EVT_1") == nil)
            #expect(try store.delivery(key: "googleplay:evt_1") == nil)
        }
    }
}
