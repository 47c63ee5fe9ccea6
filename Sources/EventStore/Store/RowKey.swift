import CSQLite

/// A 64-bit key for a user or event id: FNV-1a over the id's UTF-8 bytes, as a signed integer.
///
/// The events table is stored in arrival order (appends are cheap); its lookups go through
/// indexes on these keys, which stay small and alike whatever the ids look like, where an
/// index on the raw ids (often 36-character UUIDs) would be two to three times larger and
/// spill out of the page cache sooner. Keys may collide, so every lookup also compares the id.
enum RowKey {
    static func of(_ id: String) -> Int64 {
        var id = id
        return id.withUTF8 { of(UnsafeRawBufferPointer($0)) }
    }

    static func of(_ bytes: UnsafeRawBufferPointer) -> Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        return Int64(bitPattern: hash)
    }

    /// Makes `abctl_row_key(text)` available to SQL on `connection`, for migrations that
    /// rebuild a table from existing ids. Inserts bind keys computed in Swift instead.
    static func registerSQLFunction(on connection: OpaquePointer) -> Int32 {
        sqlite3_create_function_v2(connection, "abctl_row_key", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil, { context, _, arguments in
            guard let value = arguments?[0], let text = sqlite3_value_text(value) else {
                sqlite3_result_null(context)
                return
            }
            let count = Int(sqlite3_value_bytes(value))
            sqlite3_result_int64(context, RowKey.of(UnsafeRawBufferPointer(start: text, count: count)))
        }, nil, nil, nil)
    }
}
