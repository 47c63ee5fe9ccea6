import Events

extension PostgresEventStore {
    /// `PaymentLedger.payment(key:)`.
    public func payment(key: String) throws -> LedgerPayment? {
        try readers.withConnection { c in
            let rows = try c.executePrepared("ledger_payment",
                                             "SELECT user_id, currency, amount_minor, refunded_minor FROM webhook_payments WHERE key = $1",
                                             [key], context: "read payment")
            return rows.count > 0 ? LedgerPayment(userID: UserID(rows.text(0, 0)), currency: rows.text(0, 1),
                                                  amountMinor: rows.int64(0, 2), refundedMinor: rows.int64(0, 3)) : nil
        }
    }

    /// `PaymentLedger.remember`: every key in one statement, so one transaction.
    public func remember(_ payment: LedgerPayment, keys: [String]) throws {
        guard !keys.isEmpty else { return }
        try readers.withConnection { c in
            _ = try c.executePrepared("ledger_remember", """
                INSERT INTO webhook_payments (key, user_id, currency, amount_minor, refunded_minor)
                SELECT k, $2, $3, $4, $5 FROM unnest($1::text[]) AS k
                ON CONFLICT (key) DO UPDATE SET user_id = EXCLUDED.user_id, currency = EXCLUDED.currency,
                    amount_minor = EXCLUDED.amount_minor, refunded_minor = GREATEST(webhook_payments.refunded_minor, EXCLUDED.refunded_minor)
                """, [Self.textArray(keys), payment.userID.text, payment.currency, String(payment.amountMinor), String(payment.refundedMinor)],
                                  context: "remember payment")
        }
    }

    /// A PostgreSQL array literal of texts, each quoted and escaped.
    static func textArray(_ items: [String]) -> String {
        "{" + items.map { "\"" + $0.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\"" }.joined(separator: ",") + "}"
    }
}
