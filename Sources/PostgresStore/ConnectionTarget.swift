import CLibPQ
import Foundation

/// Where a libpq URL points, for messages: host, port, database and user, and the password
/// only so that it can be cut out of any message libpq writes.
public struct ConnectionTarget: Sendable, Equatable {
    public var url: String
    public var host: String
    public var port: String
    public var database: String
    public var user: String
    private var password: String?

    /// Whether `text` is a libpq connection URI (`postgres://…` or `postgresql://…`).
    public static func isPostgresURL(_ text: String) -> Bool {
        text.hasPrefix("postgres://") || text.hasPrefix("postgresql://")
    }

    /// Parses `url` with libpq's own parser; a malformed URL is a `.connection` error naming
    /// what could be read of host and database.
    public init(url: String) throws {
        self.url = url
        password = Self.rawPassword(in: url)
        var errorMessage: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(url, &errorMessage) else {
            let message = errorMessage.map { String(cString: $0) } ?? "malformed connection URL"
            if let errorMessage { PQfreemem(errorMessage) }
            host = "?"
            port = ""
            database = "?"
            user = ""
            throw PostgresError(kind: .connection, context: "parse URL", message: redact(message.trimmed),
                                location: "(unparsable URL)")
        }
        defer { PQconninfoFree(options) }
        var values: [String: String] = [:]
        var option = options
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val { values[String(cString: keyword)] = String(cString: value) }
            option += 1
        }
        host = values["host"] ?? values["hostaddr"] ?? "localhost"
        port = values["port"] ?? "5432"
        user = values["user"] ?? ""
        database = values["dbname"] ?? (values["user"] ?? "")
        if let parsed = values["password"] { password = parsed }
    }

    /// `host:port/database`, for every message about this server.
    public var location: String { "host \(host) port \(port) database \(database)" }

    /// `text` with the password, raw and percent-decoded, replaced by `***`.
    public func redact(_ text: String) -> String {
        guard let password, !password.isEmpty else { return text }
        var out = text.replacingOccurrences(of: password, with: "***")
        if let decoded = password.removingPercentEncoding, !decoded.isEmpty, decoded != password {
            out = out.replacingOccurrences(of: decoded, with: "***")
        }
        return out
    }

    /// The userinfo's password of `scheme://user:password@host…`, as written.
    private static func rawPassword(in url: String) -> String? {
        guard let schemeEnd = url.range(of: "://") else { return nil }
        let rest = url[schemeEnd.upperBound...]
        let authority = rest.prefix { $0 != "/" && $0 != "?" }
        guard let at = authority.lastIndex(of: "@") else { return nil }
        let userinfo = authority[..<at]
        guard let colon = userinfo.firstIndex(of: ":") else { return nil }
        return String(userinfo[userinfo.index(after: colon)...])
    }
}

extension String {
    var trimmed: String { trimmingCharacters(in: .whitespacesAndNewlines) }
}
