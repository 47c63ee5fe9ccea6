import Events

extension SQLiteEventStore {
    /// `ConsoleSessionStore.consoleSecret`: the first secret kept under `name` stays.
    public func consoleSecret(name: String, generated: String) throws -> String {
        try writer.perform(context: "console secret") { c in
            let insert = try c.cached("INSERT INTO console_secrets (name, secret) VALUES (?1, ?2) ON CONFLICT (name) DO NOTHING")
            defer { insert.finish() }
            try insert.bind(1, name)
            try insert.bind(2, generated)
            try insert.run()
            let read = try c.cached("SELECT secret FROM console_secrets WHERE name = ?1")
            defer { read.finish() }
            try read.bind(1, name)
            guard try read.step() else { return generated }
            return read.text(0)
        }
    }

    /// `ConsoleSessionStore.createSession`.
    public func createSession(_ session: ConsoleSession) throws {
        try writer.perform(context: "create console session") { c in
            let s = try c.cached("""
                INSERT INTO console_sessions (id, key_hmac, name, created_at, expires_at, revoked_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                """)
            defer { s.finish() }
            try s.bind(1, session.id)
            try s.bind(2, session.keyHMAC)
            try s.bind(3, session.name)
            try s.bind(4, session.createdAt)
            try s.bind(5, session.expiresAt)
            try s.bind(6, session.revokedAt)
            try s.run()
        }
    }

    /// `ConsoleSessionStore.session(id:)`, read by the reader pool.
    public func session(id: String) throws -> ConsoleSession? {
        try readers.read { c in
            let s = try c.cached("SELECT key_hmac, name, created_at, expires_at, revoked_at FROM console_sessions WHERE id = ?1")
            defer { s.finish() }
            try s.bind(1, id)
            guard try s.step() else { return nil }
            return ConsoleSession(id: id, keyHMAC: s.text(0), name: s.text(1), createdAt: s.int64(2), expiresAt: s.int64(3),
                                  revokedAt: s.isNull(4) ? nil : s.int64(4))
        }
    }

    /// `ConsoleSessionStore.revokeSession`.
    public func revokeSession(id: String, at: Int64) throws {
        try writer.perform(context: "revoke console session") { c in
            let s = try c.cached("UPDATE console_sessions SET revoked_at = ?2 WHERE id = ?1 AND revoked_at IS NULL")
            defer { s.finish() }
            try s.bind(1, id)
            try s.bind(2, at)
            try s.run()
        }
    }

    /// `ConsoleSessionStore.recordFailedSignIn`.
    public func recordFailedSignIn(address: String, at: Int64, forgetBefore: Int64) throws {
        try writer.perform(context: "record failed sign-in") { c in
            let forget = try c.cached("DELETE FROM console_sign_in_failures WHERE at < ?1")
            defer { forget.finish() }
            try forget.bind(1, forgetBefore)
            try forget.run()
            let s = try c.cached("INSERT INTO console_sign_in_failures (address, at) VALUES (?1, ?2)")
            defer { s.finish() }
            try s.bind(1, address)
            try s.bind(2, at)
            try s.run()
        }
    }

    /// `ConsoleSessionStore.failedSignIns`.
    public func failedSignIns(address: String, since: Int64) throws -> Int {
        try readers.read { c in
            let s = try c.cached("SELECT count(*) FROM console_sign_in_failures WHERE address = ?1 AND at >= ?2")
            defer { s.finish() }
            try s.bind(1, address)
            try s.bind(2, since)
            guard try s.step() else { return 0 }
            return Int(s.int64(0))
        }
    }
}

extension SQLiteEventStore {
    /// `ConsoleSessionStore.createShare`.
    public func createShare(_ share: ConsoleShare) throws {
        try writer.perform(context: "create share link") { c in
            let s = try c.cached("""
                INSERT INTO console_shares (id, experiment, parameters, key_hmac, created_at, expires_at, revoked_at)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
                """)
            defer { s.finish() }
            try s.bind(1, share.id)
            try s.bind(2, share.experiment)
            try s.bind(3, share.parameters)
            try s.bind(4, share.keyHMAC)
            try s.bind(5, share.createdAt)
            try s.bind(6, share.expiresAt)
            try s.bind(7, share.revokedAt)
            try s.run()
        }
    }

    /// `ConsoleSessionStore.share(id:)`.
    public func share(id: String) throws -> ConsoleShare? {
        try readers.read { c in
            let s = try c.cached("SELECT \(Self.shareColumns) FROM console_shares WHERE id = ?1")
            defer { s.finish() }
            try s.bind(1, id)
            return try s.step() ? Self.share(s) : nil
        }
    }

    /// `ConsoleSessionStore.shares(experiment:)`.
    public func shares(experiment: String) throws -> [ConsoleShare] {
        try readers.read { c in
            let s = try c.cached("SELECT \(Self.shareColumns) FROM console_shares WHERE experiment = ?1 ORDER BY created_at DESC, id")
            defer { s.finish() }
            try s.bind(1, experiment)
            var out: [ConsoleShare] = []
            while try s.step() { out.append(Self.share(s)) }
            return out
        }
    }

    /// `ConsoleSessionStore.revokeShare`.
    public func revokeShare(id: String, at: Int64) throws {
        try writer.perform(context: "revoke share link") { c in
            let s = try c.cached("UPDATE console_shares SET revoked_at = ?2 WHERE id = ?1 AND revoked_at IS NULL")
            defer { s.finish() }
            try s.bind(1, id)
            try s.bind(2, at)
            try s.run()
        }
    }

    private static let shareColumns = "id, experiment, parameters, key_hmac, created_at, expires_at, revoked_at"

    private static func share(_ s: Statement) -> ConsoleShare {
        ConsoleShare(id: s.text(0), experiment: s.text(1), parameters: s.text(2), keyHMAC: s.text(3), createdAt: s.int64(4),
                     expiresAt: s.int64(5), revokedAt: s.isNull(6) ? nil : s.int64(6))
    }
}
