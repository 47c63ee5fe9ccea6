import Events

extension PostgresEventStore {
    /// `ConsoleSessionStore.consoleSecret`: the first secret kept under `name` stays, whichever node kept it.
    public func consoleSecret(name: String, generated: String) throws -> String {
        try readers.withConnection { c in
            _ = try c.executePrepared("console_secret_keep",
                                      "INSERT INTO console_secrets (name, secret) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING",
                                      [name, generated], context: "keep console secret")
            let rows = try c.executePrepared("console_secret", "SELECT secret FROM console_secrets WHERE name = $1", [name],
                                             context: "read console secret")
            guard rows.count > 0 else { return generated }
            return rows.text(0, 0)
        }
    }

    /// `ConsoleSessionStore.createSession`.
    public func createSession(_ session: ConsoleSession) throws {
        try readers.withConnection { c in
            _ = try c.executePrepared("console_session_create", """
                INSERT INTO console_sessions (id, key_hmac, name, created_at, expires_at, revoked_at) VALUES ($1, $2, $3, $4, $5, $6)
                """, [session.id, session.keyHMAC, session.name, String(session.createdAt), String(session.expiresAt),
                      session.revokedAt.map { String($0) }], context: "create console session")
        }
    }

    /// `ConsoleSessionStore.session(id:)`.
    public func session(id: String) throws -> ConsoleSession? {
        try readers.withConnection { c in
            let rows = try c.executePrepared("console_session",
                                             "SELECT key_hmac, name, created_at, expires_at, revoked_at FROM console_sessions WHERE id = $1",
                                             [id], context: "read console session")
            guard rows.count > 0 else { return nil }
            return ConsoleSession(id: id, keyHMAC: rows.text(0, 0), name: rows.text(0, 1), createdAt: rows.int64(0, 2),
                                  expiresAt: rows.int64(0, 3), revokedAt: rows.isNull(0, 4) ? nil : rows.int64(0, 4))
        }
    }

    /// `ConsoleSessionStore.revokeSession`.
    public func revokeSession(id: String, at: Int64) throws {
        try readers.withConnection { c in
            _ = try c.executePrepared("console_session_revoke",
                                      "UPDATE console_sessions SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL",
                                      [id, String(at)], context: "revoke console session")
        }
    }

    /// `ConsoleSessionStore.recordFailedSignIn`.
    public func recordFailedSignIn(address: String, at: Int64, forgetBefore: Int64) throws {
        try readers.withConnection { c in
            _ = try c.executePrepared("console_failures_forget", "DELETE FROM console_sign_in_failures WHERE at < $1",
                                      [String(forgetBefore)], context: "forget failed sign-ins")
            _ = try c.executePrepared("console_failure_record", "INSERT INTO console_sign_in_failures (address, at) VALUES ($1, $2)",
                                      [address, String(at)], context: "record failed sign-in")
        }
    }

    /// `ConsoleSessionStore.failedSignIns`.
    public func failedSignIns(address: String, since: Int64) throws -> Int {
        try readers.withConnection { c in
            let rows = try c.executePrepared("console_failures",
                                             "SELECT count(*) FROM console_sign_in_failures WHERE address = $1 AND at >= $2",
                                             [address, String(since)], context: "count failed sign-ins")
            return rows.count > 0 ? Int(rows.int64(0, 0)) : 0
        }
    }
}

extension PostgresEventStore {
    /// `ConsoleSessionStore.createShare`.
    public func createShare(_ share: ConsoleShare) throws {
        try readers.withConnection { c in
            _ = try c.executePrepared("console_share_create", """
                INSERT INTO console_shares (id, experiment, parameters, key_hmac, created_at, expires_at, revoked_at)
                VALUES ($1, $2, $3, $4, $5, $6, $7)
                """, [share.id, share.experiment, share.parameters, share.keyHMAC, String(share.createdAt), String(share.expiresAt),
                      share.revokedAt.map { String($0) }], context: "create share link")
        }
    }

    /// `ConsoleSessionStore.share(id:)`.
    public func share(id: String) throws -> ConsoleShare? {
        try readers.withConnection { c in
            let rows = try c.executePrepared("console_share", "SELECT \(Self.shareColumns) FROM console_shares WHERE id = $1", [id],
                                             context: "read share link")
            return rows.count > 0 ? Self.share(rows, 0) : nil
        }
    }

    /// `ConsoleSessionStore.shares(experiment:)`.
    public func shares(experiment: String) throws -> [ConsoleShare] {
        try readers.withConnection { c in
            let rows = try c.executePrepared("console_shares",
                                             "SELECT \(Self.shareColumns) FROM console_shares WHERE experiment = $1 ORDER BY created_at DESC, id",
                                             [experiment], context: "read share links")
            return (0..<rows.count).map { Self.share(rows, $0) }
        }
    }

    /// `ConsoleSessionStore.revokeShare`.
    public func revokeShare(id: String, at: Int64) throws {
        try readers.withConnection { c in
            _ = try c.executePrepared("console_share_revoke", "UPDATE console_shares SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL",
                                      [id, String(at)], context: "revoke share link")
        }
    }

    private static let shareColumns = "id, experiment, parameters, key_hmac, created_at, expires_at, revoked_at"

    private static func share(_ rows: ResultSet, _ row: Int) -> ConsoleShare {
        ConsoleShare(id: rows.text(row, 0), experiment: rows.text(row, 1), parameters: rows.text(row, 2), keyHMAC: rows.text(row, 3),
                     createdAt: rows.int64(row, 4), expiresAt: rows.int64(row, 5), revokedAt: rows.isNull(row, 6) ? nil : rows.int64(row, 6))
    }
}
