import CSQLite
import ExperimentDefinitions

/// A prepared statement. Owned by its `Connection`; used on the connection's thread only.
final class Statement {
    private let stmt: OpaquePointer
    private unowned let connection: Connection
    let sql: String
    /// The parameters holding a value (bit `i - 1` for parameter `i` up to 64): the others hold
    /// NULL, as every parameter of a fresh statement and after `reset` does, so binding NULL to
    /// them is skipped (a bulk insert binds nine absent fields per event).
    private var holdingValues: UInt64 = 0
    /// Parameters tracked in `holdingValues` (a number past them still reaches SQLite, which refuses it).
    private let tracked: Int32

    init(_ stmt: OpaquePointer, connection: Connection, sql: String) {
        self.stmt = stmt
        self.connection = connection
        self.sql = sql
        tracked = min(64, sqlite3_bind_parameter_count(stmt))
    }

    deinit { sqlite3_finalize(stmt) }

    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    /// Success returns before touching `connection`: reading an unowned reference takes a
    /// strong retain and a release, on every bind of the hot paths.
    @inline(__always)
    private func check(_ rc: Int32, _ context: String) throws {
        if rc == SQLITE_OK { return }
        _ = try connection.check(rc, context, sql: sql)
    }

    /// Ends the current run without clearing bindings, so the statement no longer holds the
    /// transaction open (a pending SELECT blocks COMMIT).
    func finish() {
        _ = sqlite3_reset(stmt)
    }

    /// Readies the statement for another run; bindings are cleared so a stale value can
    /// never leak into the next run.
    func reset() throws {
        // sqlite3_reset repeats the error of the last step; that error was already reported.
        _ = sqlite3_reset(stmt)
        try check(sqlite3_clear_bindings(stmt), "clear_bindings")
        holdingValues = 0
    }

    /// Notes that parameter `index` now holds a value.
    @inline(__always)
    private func holds(_ index: Int32) {
        if index >= 1 && index <= tracked { holdingValues |= 1 << UInt64(index - 1) }
    }

    // MARK: Binding (1-based indices, as SQLite counts)

    func bind(_ index: Int32, _ value: Int64) throws {
        holds(index)
        try check(sqlite3_bind_int64(stmt, index, value), "bind")
    }

    func bind(_ index: Int32, _ value: Int64?) throws {
        if let value { try bind(index, value) } else { try bindNull(index) }
    }

    func bind(_ index: Int32, _ value: Double) throws {
        holds(index)
        try check(sqlite3_bind_double(stmt, index, value), "bind")
    }

    func bind(_ index: Int32, _ value: Double?) throws {
        if let value { try bind(index, value) } else { try bindNull(index) }
    }

    func bind(_ index: Int32, _ value: String) throws {
        holds(index)
        var value = value
        let rc: Int32 = value.withUTF8 { buffer in
            guard let base = buffer.baseAddress else { return sqlite3_bind_text(stmt, index, "", 0, Statement.transient) }
            return base.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                sqlite3_bind_text(stmt, index, $0, Int32(buffer.count), Statement.transient)
            }
        }
        try check(rc, "bind")
    }

    func bind(_ index: Int32, _ value: String?) throws {
        if let value { try bind(index, value) } else { try bindNull(index) }
    }

    /// A user or event id, bound as its text (SQLite compares it by bytes, as the type does).
    func bind(_ index: Int32, _ value: some BytewiseText) throws { try bind(index, value.text) }

    /// Binds bytes as a BLOB, or NULL for nil.
    func bind(_ index: Int32, blob value: [UInt8]?) throws {
        guard let value else { return try bindNull(index) }
        holds(index)
        let rc: Int32 = value.withUnsafeBytes { sqlite3_bind_blob(stmt, index, $0.baseAddress, Int32($0.count), Statement.transient) }
        try check(rc, "bind")
    }

    func bindNull(_ index: Int32) throws {
        if index >= 1 && index <= tracked {
            let bit: UInt64 = 1 << UInt64(index - 1)
            if holdingValues & bit == 0 { return }
            holdingValues &= ~bit
        }
        try check(sqlite3_bind_null(stmt, index), "bind")
    }

    // MARK: Stepping

    /// Advances; true when a row is available, false when done.
    func step() throws -> Bool {
        let rc = sqlite3_step(stmt)
        if rc == SQLITE_ROW { return true }
        if rc == SQLITE_DONE { return false }
        try check(rc, "step")
        return false
    }

    /// Runs a statement that returns no rows.
    func run() throws {
        while try step() {}
    }

    // MARK: Columns (0-based)

    var columnCount: Int32 { sqlite3_column_count(stmt) }

    /// The name a result column has (its name in the table, or its `AS` name).
    func columnName(_ column: Int32) -> String { sqlite3_column_name(stmt, column).map { String(cString: $0) } ?? "" }

    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(stmt, column) == SQLITE_NULL }

    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(stmt, column) }

    /// One call into the statement for the column's value, then its type and number from the value
    /// itself: a report reads a dozen of these per row, and each `sqlite3_column_*` call finds the
    /// column anew.
    func optionalInt64(_ column: Int32) -> Int64? {
        guard let value = sqlite3_column_value(stmt, column), sqlite3_value_type(value) != SQLITE_NULL else { return nil }
        return sqlite3_value_int64(value)
    }

    func double(_ column: Int32) -> Double { sqlite3_column_double(stmt, column) }

    func optionalDouble(_ column: Int32) -> Double? { isNull(column) ? nil : double(column) }

    func text(_ column: Int32) -> String {
        withText(column) { String(decoding: $0, as: UTF8.self) }
    }

    /// `optionalInt64`'s one call, for text.
    func optionalText(_ column: Int32) -> String? {
        guard let value = sqlite3_column_value(stmt, column), sqlite3_value_type(value) != SQLITE_NULL else { return nil }
        guard let pointer = sqlite3_value_text(value) else { return "" }
        return String(decoding: UnsafeBufferPointer(start: pointer, count: Int(sqlite3_value_bytes(value))), as: UTF8.self)
    }

    /// Calls `body` with a TEXT column's UTF-8 bytes (empty for NULL), without making a string; the
    /// bytes live until the next step. `optionalInt64`'s one call into the statement, then the bytes
    /// and their count from the value.
    func withText<T>(_ column: Int32, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T {
        let value = sqlite3_column_value(stmt, column)
        let pointer = sqlite3_value_text(value)
        let count = Int(sqlite3_value_bytes(value))
        return body(UnsafeBufferPointer(start: pointer, count: pointer == nil ? 0 : count))
    }

    /// Calls `body` with a BLOB column's bytes (empty for NULL); the bytes live until the next step.
    func withBlob<T>(_ column: Int32, _ body: (UnsafeRawBufferPointer) -> T) -> T {
        let value = sqlite3_column_value(stmt, column)
        let pointer = sqlite3_value_blob(value)
        let count = Int(sqlite3_value_bytes(value))
        return body(UnsafeRawBufferPointer(start: pointer, count: pointer == nil ? 0 : count))
    }
}
