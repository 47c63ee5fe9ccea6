import Events
import ExperimentDefinitions

extension PostgresEventStore {
    /// `StoreAccountDirectory.user(forStoreAccount:)`: the earliest exposure carrying the id, through
    /// the partial index on (store_account_id, ts).
    public func user(forStoreAccount storeAccountID: String) throws -> UserID? {
        try readers.withConnection { c in
            let rows = try c.executePrepared("user_for_store_account", """
                SELECT user_id FROM events WHERE store_account_id = $1 AND store_account_id IS NOT NULL
                ORDER BY ts, user_id LIMIT 1
                """, [storeAccountID], context: "read store account")
            return rows.count > 0 ? UserID(rows.text(0, 0)) : nil
        }
    }
}
