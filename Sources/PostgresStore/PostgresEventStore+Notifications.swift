import Events
import ExperimentDefinitions

extension PostgresEventStore {
    static let notificationColumns = """
        id, target, type, experiment, at_ts, text, details, state, attempts, recorded_ts, next_try_ts,
        claimed_by, claimed_until_ts, finished_ts, last_error
        """

    /// `NotificationOutbox.recordNotification`: the first row of an (id, target) stays, whichever node writes it.
    public func recordNotification(_ notification: OutboxNotification, targets: [String]) throws -> Int {
        guard !targets.isEmpty else { return 0 }
        return try readers.withConnection { c in
            var written = 0
            let n = notification
            for target in targets {
                written += try c.executePrepared("record_notification", """
                    INSERT INTO notifications (\(Self.notificationColumns))
                    VALUES ($1, $2, $3, $4, $5::bigint, $6, $7, $8, 0, $9::bigint, $10::bigint, NULL, NULL, NULL, NULL)
                    ON CONFLICT (id, target) DO NOTHING
                    """, [n.id, target, n.type, n.experiment, String(n.at.microseconds), n.text, n.details, n.state.rawValue,
                          String(n.recordedAt.microseconds), String(n.nextTryAt.microseconds)], context: "record notification").affectedRows
            }
            return written
        }
    }

    /// `NotificationOutbox.claimNotification`: one UPDATE whose row is locked with SKIP LOCKED, so two
    /// nodes claiming at once never get the same row.
    public func claimNotification(claimant: String, now: Timestamp, until: Timestamp) throws -> OutboxNotification? {
        try readers.withConnection { c in
            let rows = try c.executePrepared("claim_notification", """
                UPDATE notifications SET claimed_by = $1, claimed_until_ts = $3::bigint
                WHERE (id, target) IN (
                    SELECT id, target FROM notifications
                    WHERE state = 'pending' AND next_try_ts <= $2::bigint
                      AND (claimed_until_ts IS NULL OR claimed_until_ts <= $2::bigint OR claimed_by = $1)
                    ORDER BY next_try_ts, recorded_ts, id, target LIMIT 1 FOR UPDATE SKIP LOCKED)
                RETURNING \(Self.notificationColumns)
                """, [claimant, String(now.microseconds), String(until.microseconds)], context: "claim notification")
            return rows.count > 0 ? Self.notification(rows, 0) : nil
        }
    }

    /// `NotificationOutbox.finishNotificationTry`.
    public func finishNotificationTry(id: String, target: String, claimant: String, outcome: OutboxTryOutcome) throws {
        let o = outcome.columns
        try readers.withConnection { c in
            _ = try c.executePrepared("finish_notification_try", """
                UPDATE notifications SET state = $1, attempts = attempts + 1, next_try_ts = COALESCE($2::bigint, next_try_ts),
                    finished_ts = $3::bigint, last_error = $4, claimed_by = NULL, claimed_until_ts = NULL
                WHERE id = $5 AND target = $6 AND claimed_by = $7 AND state = 'pending'
                """, [o.state.rawValue, o.nextTry.map { String($0.microseconds) }, o.finished.map { String($0.microseconds) }, o.error,
                      id, target, claimant], context: "finish notification try")
        }
    }

    /// `NotificationOutbox.notifications(experiment:)`.
    public func notifications(experiment: String?) throws -> [OutboxNotification] {
        try readers.withConnection { c in
            let rows = try c.executePrepared("notifications", """
                SELECT \(Self.notificationColumns) FROM notifications WHERE $1::text IS NULL OR experiment = $1
                ORDER BY recorded_ts, id, target
                """, [experiment], context: "read notifications")
            return (0..<rows.count).map { Self.notification(rows, $0) }
        }
    }

    /// `NotificationOutbox.failedNotifications(limit:)`.
    public func failedNotifications(limit: Int) throws -> [OutboxNotification] {
        try readers.withConnection { c in
            let rows = try c.executePrepared("failed_notifications", """
                SELECT \(Self.notificationColumns) FROM notifications WHERE state = 'failed'
                ORDER BY finished_ts DESC NULLS LAST, recorded_ts DESC, id, target LIMIT $1::bigint
                """, [String(max(0, limit))], context: "read failed notifications")
            return (0..<rows.count).map { Self.notification(rows, $0) }
        }
    }

    /// Row `r`, in `notificationColumns`' order.
    static func notification(_ rows: ResultSet, _ r: Int) -> OutboxNotification {
        OutboxNotification(id: rows.text(r, 0), target: rows.text(r, 1), type: rows.text(r, 2), experiment: rows.text(r, 3),
                           at: Timestamp(microseconds: rows.int64(r, 4)), text: rows.text(r, 5), details: rows.text(r, 6),
                           state: OutboxNotification.State(rawValue: rows.text(r, 7)) ?? .failed, attempts: Int(rows.int64(r, 8)),
                           recordedAt: Timestamp(microseconds: rows.int64(r, 9)), nextTryAt: Timestamp(microseconds: rows.int64(r, 10)),
                           claimedBy: rows.optionalText(r, 11), claimedUntil: rows.optionalInt64(r, 12).map(Timestamp.init(microseconds:)),
                           finishedAt: rows.optionalInt64(r, 13).map(Timestamp.init(microseconds:)), lastError: rows.optionalText(r, 14))
    }
}
