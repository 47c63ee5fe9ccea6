import ExperimentDefinitions

/// The webhook deliveries already stored, kept by the vendor's own delivery id (a Stripe event
/// id, a Pub/Sub message id, an App Store notification UUID), so a redelivery is recognised
/// before the webhook calls anyone (Google Play's API) or maps it again against a store that has
/// moved on (a replayed `invoice.paid` would map to `renewed` once the trial has converted).
///
/// Keys carry the vendor as a prefix (`googleplay:message:123`). Like the payment ledger these
/// rows are keyed by the vendor's id, not by the user: a redelivery names no user before it is
/// mapped.
public protocol WebhookDeliveryLog: Sendable {
    /// What the delivery under `key` was first stored as, if it was.
    func delivery(key: String) throws -> WebhookDelivery?

    /// Keeps `delivery` under `key` unless one is kept there already: the first stored wins.
    func recordDelivery(_ delivery: WebhookDelivery, key: String) throws
}

/// One stored delivery: the user and the type of the event it was stored as.
public struct WebhookDelivery: Sendable, Equatable {
    public var userID: UserID
    public var type: EventType

    public init(userID: UserID, type: EventType) {
        self.userID = userID
        self.type = type
    }
}
