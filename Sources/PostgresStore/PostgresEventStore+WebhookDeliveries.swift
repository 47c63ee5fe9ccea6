import Events
import ExperimentDefinitions

extension PostgresEventStore {
    /// `WebhookDeliveryLog.delivery(key:)`.
    public func delivery(key: String) throws -> WebhookDelivery? {
        try readers.withConnection { c in
            let rows = try c.executePrepared("webhook_delivery", "SELECT user_id, type FROM webhook_deliveries WHERE key = $1",
                                             [key], context: "read webhook delivery")
            guard rows.count > 0, let type = EventType(rawValue: Int(rows.int64(0, 1))) else { return nil }
            return WebhookDelivery(userID: UserID(rows.text(0, 0)), type: type)
        }
    }

    /// `WebhookDeliveryLog.recordDelivery`: the first record under a key stays.
    public func recordDelivery(_ delivery: WebhookDelivery, key: String) throws {
        try readers.withConnection { c in
            _ = try c.executePrepared("webhook_delivery_record",
                                      "INSERT INTO webhook_deliveries (key, user_id, type) VALUES ($1, $2, $3) ON CONFLICT (key) DO NOTHING",
                                      [key, delivery.userID.text, String(delivery.type.rawValue)], context: "record webhook delivery")
        }
    }
}
