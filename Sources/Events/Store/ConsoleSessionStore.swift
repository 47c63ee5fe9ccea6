/// What the console keeps in the store, so every node knows it: sign-in sessions, the server's
/// secret when none is configured, failed sign-ins per address, and share links (docs/Console.md).
///
/// Times are Unix seconds. A session's key is kept as its HMAC under the server's secret, never
/// the key itself.
public protocol ConsoleSessionStore: Sendable {
    /// The secret kept under `name` (as text, e.g. hexadecimal); when there is none yet,
    /// `generated` is kept first. Every caller, on every node, gets the one that was kept first.
    func consoleSecret(name: String, generated: String) throws -> String

    /// Keeps a new session; its id is new (a random 128-bit value).
    func createSession(_ session: ConsoleSession) throws

    /// The session with this id, revoked or expired ones included; nil when there is none.
    func session(id: String) throws -> ConsoleSession?

    /// Marks the session revoked at `at` (Unix seconds); an already revoked one keeps its time.
    func revokeSession(id: String, at: Int64) throws

    /// Records one failed sign-in from `address` at `at`, dropping records older than `forgetBefore`.
    func recordFailedSignIn(address: String, at: Int64, forgetBefore: Int64) throws

    /// Failed sign-ins from `address` at or after `since`.
    func failedSignIns(address: String, since: Int64) throws -> Int

    /// Keeps a new share link.
    func createShare(_ share: ConsoleShare) throws

    /// The share with this id, revoked or expired ones included; nil when there is none.
    func share(id: String) throws -> ConsoleShare?

    /// Every share of `experiment`, newest first, revoked and expired ones included.
    func shares(experiment: String) throws -> [ConsoleShare]

    /// Marks the share revoked at `at`; an already revoked one keeps its time.
    func revokeShare(id: String, at: Int64) throws
}

/// One share link: one experiment's report with fixed parameters, for someone without a key.
public struct ConsoleShare: Sendable, Equatable {
    /// 40 lowercase hexadecimal digits (never the length of a session's id).
    public var id: String
    public var experiment: String
    /// The report parameters, as the query string of the experiment's page.
    public var parameters: String
    /// The HMAC of the key that made it, as a session keeps it.
    public var keyHMAC: String
    public var createdAt: Int64
    public var expiresAt: Int64
    public var revokedAt: Int64?

    public init(id: String, experiment: String, parameters: String, keyHMAC: String, createdAt: Int64, expiresAt: Int64, revokedAt: Int64? = nil) {
        self.id = id
        self.experiment = experiment
        self.parameters = parameters
        self.keyHMAC = keyHMAC
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.revokedAt = revokedAt
    }
}

/// One console session.
public struct ConsoleSession: Sendable, Equatable {
    /// 32 lowercase hexadecimal digits.
    public var id: String
    /// The key's HMAC under the server's secret, as hexadecimal.
    public var keyHMAC: String
    /// The key's name (the name the keys file gives it, else a hash prefix; docs/API.md).
    public var name: String
    public var createdAt: Int64
    public var expiresAt: Int64
    public var revokedAt: Int64?

    public init(id: String, keyHMAC: String, name: String, createdAt: Int64, expiresAt: Int64, revokedAt: Int64? = nil) {
        self.id = id
        self.keyHMAC = keyHMAC
        self.name = name
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.revokedAt = revokedAt
    }
}
