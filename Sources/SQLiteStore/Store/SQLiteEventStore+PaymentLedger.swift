import Events

extension SQLiteEventStore {
    /// `PaymentLedger.payment(key:)`, read by the reader pool.
    public func payment(key: String) throws -> LedgerPayment? {
        try readers.read { c in
            let s = try c.cached("SELECT user_id, currency, amount_minor, refunded_minor FROM webhook_payments WHERE key = ?1")
            defer { s.finish() }
            try s.bind(1, key)
            return try s.step() ? LedgerPayment(userID: UserID(s.text(0)), currency: s.text(1), amountMinor: s.int64(2), refundedMinor: s.int64(3)) : nil
        }
    }

    /// `PaymentLedger.remember`, in a transaction of its own on the single writer.
    public func remember(_ payment: LedgerPayment, keys: [String]) throws {
        try writer.perform(context: "remember payment") { c in
            let s = try c.cached("""
                INSERT INTO webhook_payments (key, user_id, currency, amount_minor, refunded_minor) VALUES (?1, ?2, ?3, ?4, ?5)
                ON CONFLICT (key) DO UPDATE SET user_id = excluded.user_id, currency = excluded.currency,
                    amount_minor = excluded.amount_minor, refunded_minor = max(refunded_minor, excluded.refunded_minor)
                """)
            for key in keys {
                defer { s.finish() }
                try s.bind(1, key)
                try s.bind(2, payment.userID)
                try s.bind(3, payment.currency)
                try s.bind(4, payment.amountMinor)
                try s.bind(5, payment.refundedMinor)
                try s.run()
            }
        }
    }
}
