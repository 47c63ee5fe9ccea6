import Events
import ExperimentDefinitions

extension SQLiteEventStore {
    /// `StoreAccountDirectory.user(forStoreAccount:)`: the earliest exposure carrying the id, through
    /// the partial index on (store_account_id, ts).
    public func user(forStoreAccount storeAccountID: String) throws -> UserID? {
        try readers.read { c in
            let s = try c.cached("""
                SELECT user_id FROM events WHERE store_account_id = ?1 AND store_account_id IS NOT NULL
                ORDER BY ts, user_id LIMIT 1
                """)
            defer { s.finish() }
            try s.bind(1, storeAccountID)
            return try s.step() ? UserID(s.text(0)) : nil
        }
    }
}
