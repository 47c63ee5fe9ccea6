import ExperimentDefinitions

/// One column of the stores' `events` table: its name, the key it keeps (nil for what only the
/// store keeps), its SQL type in each dialect, and how an `Event` gives and takes its value.
/// The entries are `EventColumns.all`.
public struct EventColumn: Sendable {
    /// How a store reads the column's value back.
    public enum Storage: Sendable {
        case integer, real, text, blob, flag
    }

    public let name: String
    /// The key of a line the column keeps; nil for a value only the store keeps (the amount as
    /// sent before conversion, whether proceeds are before tax).
    public let field: EventField?
    public let storage: Storage
    /// The type SQLite's `PRAGMA table_info` names (`TEXT`, `INTEGER`, `REAL`, `BLOB`).
    public let sqliteType: String
    /// The type PostgreSQL's `information_schema.columns.data_type` names (`text`, `bigint`, …).
    public let postgresType: String
    /// Every row has a value (`NOT NULL` in both stores).
    public let notNull: Bool
    /// Text PostgreSQL compares by bytes (`COLLATE "C"`), as SQLite compares all text: keys, and
    /// what reports sort or group by.
    public let bytewise: Bool
    /// The column's value for the event at the pointer: by pointer, so a store's insert reads the
    /// one field in place (an `Event` argument was copied whole, every string retained and released).
    public let read: @Sendable (UnsafePointer<Event>) -> StoredValue
    /// Sets what the column keeps on an event read back from the store.
    public let restore: @Sendable (inout Event, StoredValue) -> Void

    public init(_ name: String, _ field: EventField?, _ storage: Storage, sqlite: String, postgres: String,
                notNull: Bool = false, bytewise: Bool = false,
                read: @escaping @Sendable (UnsafePointer<Event>) -> StoredValue,
                restore: @escaping @Sendable (inout Event, StoredValue) -> Void) {
        self.name = name
        self.field = field
        self.storage = storage
        sqliteType = sqlite
        postgresType = postgres
        self.notNull = notNull
        self.bytewise = bytewise
        self.read = read
        self.restore = restore
    }

    /// The column's value for an event.
    public func value(_ event: Event) -> StoredValue {
        withUnsafePointer(to: event) { read($0) }
    }
}
