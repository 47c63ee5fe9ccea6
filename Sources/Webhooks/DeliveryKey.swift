import Events
import ExperimentDefinitions

/// Where a vendor's delivery is kept in the store's `WebhookDeliveryLog`: `key` is the vendor, then
/// the id the vendor redelivers with (Stripe's event id, Pub/Sub's `messageId`, Apple's
/// `notificationUUID`), which is also the stored event's `event_id`. Looked up before a delivery is
/// mapped, so a redelivery makes no outside call and answers what was first stored.
public struct DeliveryKey: Sendable, Equatable {
    public let key: String
    public let eventID: EventID

    init(vendor: String, id: String) {
        key = vendor + ":" + id
        eventID = EventID(id)
    }

    /// A Stripe event's top-level `id`; nil when the body has none (mapping then refuses it).
    public static func stripe(_ body: [UInt8]) -> DeliveryKey? {
        guard let node = try? JSONReader.parse(body), case .object(let event) = node.value,
              case .string(let id)? = event.last(where: { $0.0 == "id" })?.1, !id.isEmpty else { return nil }
        return DeliveryKey(vendor: "stripe", id: id)
    }

    public static func googlePlay(_ notification: GooglePlayMapping.Notification) -> DeliveryKey {
        DeliveryKey(vendor: "googleplay", id: notification.messageID)
    }

    /// A verified App Store notification's `notificationUUID`; nil when it has none.
    public static func appStore(payload: [(String, JSONValue)]) -> DeliveryKey? {
        guard case .string(let id)? = payload.last(where: { $0.0 == "notificationUUID" })?.1, !id.isEmpty else { return nil }
        return DeliveryKey(vendor: "appstore", id: id)
    }
}
