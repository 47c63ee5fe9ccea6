import Events
import ExperimentDefinitions

extension SQLiteEventStore {
    /// `WebhookDeliveryLog.delivery(key:)`, read by the reader pool.
    public func delivery(key: String) throws -> WebhookDelivery? {
        try readers.read { c in
            let s = try c.cached("SELECT user_id, type FROM webhook_deliveries WHERE key = ?1")
            defer { s.finish() }
            try s.bind(1, key)
            guard try s.step(), let type = EventType(rawValue: Int(s.int64(1))) else { return nil }
            return WebhookDelivery(userID: UserID(s.text(0)), type: type)
        }
    }

    /// `WebhookDeliveryLog.recordDelivery`: the first record under a key stays.
    public func recordDelivery(_ delivery: WebhookDelivery, key: String) throws {
        try writer.perform(context: "record webhook delivery") { c in
            let s = try c.cached("INSERT INTO webhook_deliveries (key, user_id, type) VALUES (?1, ?2, ?3) ON CONFLICT (key) DO NOTHING")
            defer { s.finish() }
            try s.bind(1, key)
            try s.bind(2, delivery.userID)
            try s.bind(3, Int64(delivery.type.rawValue))
            try s.run()
        }
    }
}
