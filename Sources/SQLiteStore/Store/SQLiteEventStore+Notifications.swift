import Events
import ExperimentDefinitions

extension SQLiteEventStore {
    static let notificationColumns = """
        id, target, type, experiment, at_ts, text, details, state, attempts, recorded_ts, next_try_ts,
        claimed_by, claimed_until_ts, finished_ts, last_error
        """

    /// `NotificationOutbox.recordNotification`: one transaction; the first row of an (id, target) stays.
    public func recordNotification(_ notification: OutboxNotification, targets: [String]) throws -> Int {
        guard !targets.isEmpty else { return 0 }
        return try writer.perform(context: "record notification") { c in
            var written = 0
            for target in targets {
                let s = try c.cached("""
                    INSERT INTO notifications (\(Self.notificationColumns))
                    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 0, ?9, ?10, NULL, NULL, NULL, NULL)
                    ON CONFLICT (id, target) DO NOTHING
                    """)
                defer { s.finish() }
                let n = notification
                try s.bind(1, n.id)
                try s.bind(2, target)
                try s.bind(3, n.type)
                try s.bind(4, n.experiment)
                try s.bind(5, n.at.microseconds)
                try s.bind(6, n.text)
                try s.bind(7, n.details)
                try s.bind(8, n.state.rawValue)
                try s.bind(9, n.recordedAt.microseconds)
                try s.bind(10, n.nextTryAt.microseconds)
                try s.run()
                written += Int(try c.scalarInt("SELECT changes()") ?? 0)
            }
            return written
        }
    }

    /// `NotificationOutbox.claimNotification`: a read and an update in the writer's transaction.
    public func claimNotification(claimant: String, now: Timestamp, until: Timestamp) throws -> OutboxNotification? {
        try writer.perform(context: "claim notification") { c in
            let pick = try c.cached("""
                SELECT \(Self.notificationColumns) FROM notifications
                WHERE state = 'pending' AND next_try_ts <= ?1 AND (claimed_until_ts IS NULL OR claimed_until_ts <= ?1 OR claimed_by = ?2)
                ORDER BY next_try_ts, recorded_ts, id, target LIMIT 1
                """)
            defer { pick.finish() }
            try pick.bind(1, now.microseconds)
            try pick.bind(2, claimant)
            guard try pick.step() else { return nil }
            var row = Self.notification(pick)
            pick.finish()
            let claim = try c.cached("UPDATE notifications SET claimed_by = ?1, claimed_until_ts = ?2 WHERE id = ?3 AND target = ?4")
            defer { claim.finish() }
            try claim.bind(1, claimant)
            try claim.bind(2, until.microseconds)
            try claim.bind(3, row.id)
            try claim.bind(4, row.target)
            try claim.run()
            row.claimedBy = claimant
            row.claimedUntil = until
            return row
        }
    }

    /// `NotificationOutbox.finishNotificationTry`.
    public func finishNotificationTry(id: String, target: String, claimant: String, outcome: OutboxTryOutcome) throws {
        let (state, next, finished, error) = outcome.columns
        try writer.perform(context: "finish notification try") { c in
            let s = try c.cached("""
                UPDATE notifications SET state = ?1, attempts = attempts + 1, next_try_ts = COALESCE(?2, next_try_ts), finished_ts = ?3,
                    last_error = ?4, claimed_by = NULL, claimed_until_ts = NULL
                WHERE id = ?5 AND target = ?6 AND claimed_by = ?7 AND state = 'pending'
                """)
            defer { s.finish() }
            try s.bind(1, state.rawValue)
            try s.bind(2, next?.microseconds)
            try s.bind(3, finished?.microseconds)
            try s.bind(4, error)
            try s.bind(5, id)
            try s.bind(6, target)
            try s.bind(7, claimant)
            try s.run()
        }
    }

    /// `NotificationOutbox.notifications(experiment:)`, read by the reader pool.
    public func notifications(experiment: String?) throws -> [OutboxNotification] {
        try readers.read { c in
            let s = try c.cached("""
                SELECT \(Self.notificationColumns) FROM notifications WHERE ?1 IS NULL OR experiment = ?1
                ORDER BY recorded_ts, id, target
                """)
            defer { s.finish() }
            try s.bind(1, experiment)
            var rows: [OutboxNotification] = []
            while try s.step() { rows.append(Self.notification(s)) }
            return rows
        }
    }

    /// `NotificationOutbox.failedNotifications(limit:)`, read by the reader pool.
    public func failedNotifications(limit: Int) throws -> [OutboxNotification] {
        try readers.read { c in
            let s = try c.cached("""
                SELECT \(Self.notificationColumns) FROM notifications WHERE state = 'failed'
                ORDER BY finished_ts DESC, recorded_ts DESC, id, target LIMIT ?1
                """)
            defer { s.finish() }
            try s.bind(1, Int64(max(0, limit)))
            var rows: [OutboxNotification] = []
            while try s.step() { rows.append(Self.notification(s)) }
            return rows
        }
    }

    /// A row read in `notificationColumns`' order.
    static func notification(_ s: Statement) -> OutboxNotification {
        OutboxNotification(id: s.text(0), target: s.text(1), type: s.text(2), experiment: s.text(3), at: Timestamp(microseconds: s.int64(4)),
                           text: s.text(5), details: s.text(6), state: OutboxNotification.State(rawValue: s.text(7)) ?? .failed,
                           attempts: Int(s.int64(8)), recordedAt: Timestamp(microseconds: s.int64(9)),
                           nextTryAt: Timestamp(microseconds: s.int64(10)), claimedBy: s.optionalText(11),
                           claimedUntil: s.optionalInt64(12).map(Timestamp.init(microseconds:)),
                           finishedAt: s.optionalInt64(13).map(Timestamp.init(microseconds:)), lastError: s.optionalText(14))
    }
}
