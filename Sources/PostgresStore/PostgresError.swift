/// Why the PostgreSQL store failed: what it was doing, where (host and database, never the
/// password), the server's SQLSTATE and message, and the SQL (never bound values).
public struct PostgresError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The server could not be reached or refused the connection (bad URL, password, host).
        case connection
        /// A statement failed.
        case query
        /// The database was migrated by a newer abctl: `found` is its schema version, `supported` ours.
        case schemaTooNew(found: Int, supported: Int)
        /// The store was closed before the request could run.
        case closed
    }

    public var kind: Kind
    /// What the store was doing, e.g. "connect", "append events", "read facts".
    public var context: String
    /// libpq's or the server's message, with the password removed.
    public var message: String
    /// `host:port` (or the socket folder) and the database name, as the URL gave them.
    public var location: String
    /// The five-character SQLSTATE, when the server sent one.
    public var sqlState: String?
    public var sql: String?

    public init(kind: Kind, context: String, message: String, location: String, sqlState: String? = nil, sql: String? = nil) {
        self.kind = kind
        self.context = context
        self.message = message
        self.location = location
        self.sqlState = sqlState
        self.sql = sql
    }

    public var description: String {
        var text: String
        switch kind {
        case .connection:
            text = "cannot connect to PostgreSQL \(location): \(message)"
        case .schemaTooNew(let found, let supported):
            text = "PostgreSQL \(location): database schema version \(found) is newer than this abctl supports (\(supported)); upgrade abctl"
        case .closed:
            text = "the PostgreSQL event store is closed"
        case .query:
            text = "PostgreSQL error during \(context) on \(location): \(message)"
            if let sqlState { text += " (SQLSTATE \(sqlState))" }
        }
        if let sql { text += " (SQL: \(sql))" }
        return text
    }
}
