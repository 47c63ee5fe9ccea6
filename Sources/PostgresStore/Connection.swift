import CLibPQ
import Foundation

/// One libpq connection. Every libpq call that can fail goes through `check`, which turns a
/// failure into a `PostgresError` carrying the context, the server's message and the SQL.
///
/// `@unchecked Sendable`: a libpq connection must not be used by two threads at once; every
/// owner (a pool slot, a writer thread) uses it from one thread at a time and hands it over
/// through a lock.
final class Connection: @unchecked Sendable {
    let target: ConnectionTarget
    private let handle: OpaquePointer
    /// Names of the statements prepared on this connection.
    private var prepared: Set<String> = []
    /// The `ServerGeneration` it was opened in (set by its pool).
    var generation = 0
    /// Statements (and copies) that succeeded on it so far: a pool tells by this whether a
    /// connection found dead had done any of a caller's work.
    private(set) var succeeded = 0

    /// Connects, waiting at most 5 s unless the URL sets `connect_timeout`.
    init(target: ConnectionTarget) throws {
        self.target = target
        // Later keywords override earlier ones: the URL (expanded from `dbname`) wins.
        let keywords = ["connect_timeout", "application_name", "dbname"]
        let values = ["5", "abctl", target.url]
        let connection = withCStrings(keywords) { k in
            withCStrings(values) { v in PQconnectdbParams(k, v, 1) }
        }
        guard let connection else {
            throw PostgresError(kind: .connection, context: "connect", message: "out of memory", location: target.location)
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = String(cString: PQerrorMessage(connection))
            PQfinish(connection)
            throw PostgresError(kind: .connection, context: "connect", message: target.redact(Self.firstLines(message)),
                                location: target.location)
        }
        handle = connection
        _ = try execute("SET client_encoding TO 'UTF8'; SET client_min_messages TO warning", context: "connect")
    }

    deinit { PQfinish(handle) }

    /// False once the server went away; such a connection is dropped, never reused.
    var isHealthy: Bool { PQstatus(handle) == CONNECTION_OK }

    /// Whether a transaction is open (or failed and not yet rolled back).
    var inTransaction: Bool { PQtransactionStatus(handle) != PQTRANS_IDLE }

    /// Runs `sql` with text parameters (nil is NULL) and returns its rows, if any. Without
    /// parameters, `sql` may hold several statements (the simple query protocol).
    @discardableResult
    func execute(_ sql: String, _ parameters: [String?] = [], context: String) throws -> ResultSet {
        if parameters.isEmpty { return try check(PQexec(handle, sql), context: context, sql: sql) }
        let result = withParameters(parameters) { values in
            PQexecParams(handle, sql, Int32(parameters.count), nil, values, nil, nil, 0)
        }
        return try check(result, context: context, sql: sql)
    }

    /// Runs a statement prepared once per connection under `name`.
    @discardableResult
    func executePrepared(_ name: String, _ sql: String, _ parameters: [String?], context: String) throws -> ResultSet {
        if !prepared.contains(name) {
            try check(PQprepare(handle, name, sql, Int32(parameters.count), nil), context: "\(context) (prepare)", sql: sql)
            prepared.insert(name)
        }
        let result = withParameters(parameters) { values in
            PQexecPrepared(handle, name, Int32(parameters.count), values, nil, nil, 0)
        }
        return try check(result, context: context, sql: sql)
    }

    /// `COPY … FROM STDIN` with `data` in COPY's text format (see `CopyBuffer`).
    func copyIn(_ sql: String, data: [UInt8], context: String) throws {
        let start = PQexec(handle, sql)
        guard let start, PQresultStatus(start) == PGRES_COPY_IN else {
            _ = try check(start, context: context, sql: sql)
            throw error(context: context, sql: sql, result: nil)
        }
        PQclear(start)
        var offset = 0
        while offset < data.count {
            let chunk = min(1 << 20, data.count - offset)
            let sent = data.withUnsafeBufferPointer { buffer in
                buffer.baseAddress!.advanced(by: offset).withMemoryRebound(to: CChar.self, capacity: chunk) {
                    PQputCopyData(handle, $0, Int32(chunk))
                }
            }
            guard sent == 1 else { throw error(context: "\(context) (send)", sql: sql, result: nil) }
            offset += chunk
        }
        guard PQputCopyEnd(handle, nil) == 1 else { throw error(context: "\(context) (end)", sql: sql, result: nil) }
        try drainResults(context: context, sql: sql)
        succeeded += 1
    }

    /// Reads results until libpq has none left, throwing the first error.
    private func drainResults(context: String, sql: String) throws {
        var failure: PostgresError?
        while let result = PQgetResult(handle) {
            let status = PQresultStatus(result)
            if failure == nil, status != PGRES_COMMAND_OK, status != PGRES_TUPLES_OK {
                failure = error(context: context, sql: sql, result: result)
            }
            PQclear(result)
        }
        if let failure { throw failure }
    }

    /// The one check every libpq result passes through.
    @discardableResult
    private func check(_ result: OpaquePointer?, context: String, sql: String) throws -> ResultSet {
        guard let result else { throw error(context: context, sql: sql, result: nil) }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK:
            succeeded += 1
            return ResultSet(result)
        default:
            let failure = error(context: context, sql: sql, result: result)
            PQclear(result)
            throw failure
        }
    }

    private func error(context: String, sql: String, result: OpaquePointer?) -> PostgresError {
        let raw = result.flatMap { PQresultErrorMessage($0) }.map { String(cString: $0) } ?? ""
        let message = raw.isEmpty ? String(cString: PQerrorMessage(handle)) : raw
        let state = result.flatMap { PQresultErrorField($0, Int32(UInt8(ascii: "C"))) }.map { String(cString: $0) }
        let lost = !isHealthy
        return PostgresError(kind: lost ? .connection : .query, context: context,
                             message: target.redact(Self.firstLines(message)), location: target.location,
                             sqlState: state, sql: lost ? nil : sql)
    }

    /// libpq's messages end in a newline and sometimes carry a DETAIL line; keep them on one line.
    private static func firstLines(_ message: String) -> String {
        message.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }.joined(separator: "; ")
    }
}

/// Calls `body` with NUL-terminated copies of `strings`, as libpq's `const char * const *`.
private func withCStrings<T>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> T) -> T {
    let copies = strings.map { strdup($0) } + [nil]
    defer { copies.forEach { free($0) } }
    let pointers = copies.map { UnsafePointer<CChar>($0) }
    return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
}

/// Text parameters for `PQexecParams`, with nil as SQL NULL.
private func withParameters<T>(_ parameters: [String?], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> T) -> T {
    if parameters.isEmpty { return body(nil) }
    let copies = parameters.map { $0.map { strdup($0) } ?? nil }
    defer { copies.forEach { free($0) } }
    let pointers = copies.map { UnsafePointer<CChar>($0) }
    return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
}
