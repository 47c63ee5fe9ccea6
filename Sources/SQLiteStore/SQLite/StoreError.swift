/// Why the store failed: what it was doing, SQLite's result code and message, and the SQL.
///
/// Bound values are never included, so an error can be logged without leaking user data.
public struct StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// SQLite returned an error code.
        case sqlite
        /// The database was written by a newer abctl: `found` is its schema version, `supported` ours.
        case schemaTooNew(found: Int, supported: Int)
        /// The store was closed before the request could run.
        case closed
    }

    public var kind: Kind
    /// SQLite's primary result code (0 when not an SQLite error).
    public var code: Int32
    /// SQLite's message, or ours.
    public var message: String
    /// What the store was doing, e.g. "open", "prepare", "step".
    public var context: String
    /// The statement involved, if any.
    public var sql: String?
    /// The database file.
    public var path: String?

    public init(kind: Kind = .sqlite, code: Int32 = 0, message: String, context: String, sql: String? = nil, path: String? = nil) {
        self.kind = kind
        self.code = code
        self.message = message
        self.context = context
        self.sql = sql
        self.path = path
    }

    public var description: String {
        var text: String
        switch kind {
        case .schemaTooNew(let found, let supported):
            text = "database schema version \(found) is newer than this abctl supports (\(supported)); upgrade abctl"
        case .closed:
            text = "the event store is closed"
        case .sqlite:
            text = "SQLite error \(code) during \(context): \(message)"
        }
        if let path { text += " [\(path)]" }
        if let sql { text += " (SQL: \(sql))" }
        return text
    }
}
