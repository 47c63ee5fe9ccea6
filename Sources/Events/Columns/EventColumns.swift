import ExperimentDefinitions

/// The stores' `events` table, one entry per column in the table's order: the one declaration of
/// what is stored of an event. Both stores' column lists, their insert binding and COPY rows, and
/// their reading of rows back into events (by column name) come from it; a test holds each
/// store's migrated table against it. A new field is one entry here (and one in `EventField`,
/// when it travels on a line), plus one migration per store under the same version number.
public enum EventColumns {
    public static let all: [EventColumn] = [
        EventColumn("user_id", .userID, .text, sqlite: "TEXT", postgres: "text", notNull: true, bytewise: true,
                    read: { .text($0.pointee.userID.text) }, restore: { $0.userID = UserID($1.text ?? "") }),
        EventColumn("event_id", .eventID, .text, sqlite: "TEXT", postgres: "text", notNull: true, bytewise: true,
                    read: { .text($0.pointee.id.text) }, restore: { $0.id = EventID($1.text ?? "") }),
        EventColumn("type", .type, .integer, sqlite: "INTEGER", postgres: "smallint", notNull: true,
                    read: { .integer(Int64($0.pointee.type.rawValue)) },
                    restore: { $0.type = $1.integer.flatMap { EventType(rawValue: Int($0)) } ?? .exposure }),
        EventColumn("ts", .ts, .integer, sqlite: "INTEGER", postgres: "bigint", notNull: true,
                    read: { .integer($0.pointee.timestamp.microseconds) },
                    restore: { $0.timestamp = Timestamp(microseconds: $1.integer ?? 0) }),
        EventColumn("experiment", .experiment, .text, sqlite: "TEXT", postgres: "text", bytewise: true,
                    read: { text($0.pointee.experiment) }, restore: { $0.experiment = $1.text }),
        EventColumn("variant", .variant, .text, sqlite: "TEXT", postgres: "text", bytewise: true,
                    read: { text($0.pointee.variant) }, restore: { $0.variant = $1.text }),
        EventColumn("revenue", .revenue, .real, sqlite: "REAL", postgres: "double precision",
                    read: { real($0.pointee.revenue) }, restore: { $0.revenue = $1.real }),
        EventColumn("currency", .currency, .text, sqlite: "TEXT", postgres: "text",
                    read: { text($0.pointee.currency) }, restore: { $0.currency = $1.text }),
        EventColumn("product_id", .productID, .text, sqlite: "TEXT", postgres: "text",
                    read: { text($0.pointee.productID) }, restore: { $0.productID = $1.text }),
        EventColumn("copy_source", .copySource, .text, sqlite: "TEXT", postgres: "text",
                    read: { text($0.pointee.copySource?.rawValue) }, restore: { $0.copySource = $1.text.flatMap(CopySource.init(rawValue:)) }),
        EventColumn("copy_text", .copyText, .text, sqlite: "TEXT", postgres: "text",
                    read: { text($0.pointee.copyText) }, restore: { $0.copyText = $1.text }),
        EventColumn("copy_fallback_reason", .copyFallbackReason, .text, sqlite: "TEXT", postgres: "text",
                    read: { text($0.pointee.copyFallbackReason) }, restore: { $0.copyFallbackReason = $1.text }),
        EventColumn("placement", .placement, .text, sqlite: "TEXT", postgres: "text",
                    read: { text($0.pointee.placement) }, restore: { $0.placement = $1.text }),
        EventColumn("attributes", .attributes, .blob, sqlite: "BLOB", postgres: "bytea",
                    read: { $0.pointee.attributes.isEmpty ? .null : .blob($0.pointee.attributes.encoded) },
                    restore: { $0.attributes = $1.blob.map(ExposureAttributes.init(encoded:)) ?? .empty }),
        EventColumn("original_revenue", nil, .real, sqlite: "REAL", postgres: "double precision",
                    read: { real($0.pointee.originalRevenue) }, restore: { $0.originalRevenue = $1.real }),
        EventColumn("original_currency", nil, .text, sqlite: "TEXT", postgres: "text",
                    read: { text($0.pointee.originalCurrency) }, restore: { $0.originalCurrency = $1.text }),
        EventColumn("store_account_id", .storeAccountID, .text, sqlite: "TEXT", postgres: "text", bytewise: true,
                    read: { text($0.pointee.storeAccountID) }, restore: { $0.storeAccountID = $1.text }),
        EventColumn("trial_days", .trialDays, .integer, sqlite: "INTEGER", postgres: "integer",
                    read: { $0.pointee.trialDays.map { .integer(Int64($0)) } ?? .null }, restore: { $0.trialDays = $1.integer.map { Int($0) } }),
        EventColumn("identity", .identity, .text, sqlite: "TEXT", postgres: "text", bytewise: true,
                    read: { text($0.pointee.identity?.text) }, restore: { $0.identity = $1.text.map(UserID.init) }),
        EventColumn("store", .store, .text, sqlite: "TEXT", postgres: "text",
                    read: { text($0.pointee.store?.rawValue) }, restore: { $0.store = $1.text.flatMap(PaymentStore.init(rawValue:)) }),
        EventColumn("proceeds", .proceeds, .real, sqlite: "REAL", postgres: "double precision",
                    read: { real($0.pointee.proceeds) }, restore: { $0.proceeds = $1.real }),
        // Whether `proceeds` are the revenue less the store's cut (tax not known); kept beside proceeds only.
        EventColumn("proceeds_before_tax", nil, .flag, sqlite: "INTEGER", postgres: "boolean",
                    read: { $0.pointee.proceeds == nil ? .null : .flag($0.pointee.proceedsBeforeTax) },
                    restore: { $0.proceedsBeforeTax = $1.flag ?? false }),
        EventColumn("allocation_period_ts", .allocationPeriod, .integer, sqlite: "INTEGER", postgres: "bigint",
                    read: { $0.pointee.allocationPeriod.map { .integer($0.microseconds) } ?? .null },
                    restore: { $0.allocationPeriod = $1.integer.map(Timestamp.init(microseconds:)) }),
        EventColumn("reason", .reason, .text, sqlite: "TEXT", postgres: "text",
                    read: { text($0.pointee.reason?.rawValue) }, restore: { $0.reason = $1.text.flatMap(ExpiryReason.init(rawValue:)) }),
        EventColumn("grace_until_ts", .graceUntil, .integer, sqlite: "INTEGER", postgres: "bigint",
                    read: { $0.pointee.graceUntil.map { .integer($0.microseconds) } ?? .null },
                    restore: { $0.graceUntil = $1.integer.map(Timestamp.init(microseconds:)) }),
        EventColumn("previous_product_id", .previousProductID, .text, sqlite: "TEXT", postgres: "text",
                    read: { text($0.pointee.previousProductID) }, restore: { $0.previousProductID = $1.text }),
        EventColumn("effective", .effective, .text, sqlite: "TEXT", postgres: "text",
                    read: { text($0.pointee.effective?.rawValue) }, restore: { $0.effective = $1.text.flatMap(PlanChangeEffect.init(rawValue:)) }),
    ]

    /// Each column's value reader, in table order: what a store's insert calls per event, without
    /// copying a column's other parts.
    public static let readers: [@Sendable (UnsafePointer<Event>) -> StoredValue] = all.map(\.read)

    /// The column names in table order, comma-separated: the list an INSERT, a COPY or a SELECT names.
    public static let names = all.map(\.name).joined(separator: ", ")

    /// An event with each of `columns`' values from `value(index, column)` (`index` in `columns`):
    /// a store's row read back, each column found by its name. Columns left out keep their defaults.
    public static func event(_ columns: [EventColumn] = all, _ value: (Int, EventColumn) -> StoredValue) -> Event {
        var event = Event(id: EventID(""), type: .exposure, userID: UserID(""), timestamp: Timestamp(microseconds: 0))
        for (index, column) in columns.enumerated() { column.restore(&event, value(index, column)) }
        return event
    }

    /// The names of `columns`, comma-separated, each prefixed with `qualifier` (a table's alias and a dot).
    public static func names(_ columns: [EventColumn], qualifier: String = "") -> String {
        columns.map { qualifier + $0.name }.joined(separator: ", ")
    }

    /// The text columns that keep a key of the line, in line order: what may hold no NUL.
    public static let textFields: [EventColumn] = EventField.allCases.compactMap { field in
        all.first { $0.field == field && $0.storage == .text }
    }

    private static func text(_ value: String?) -> StoredValue { value.map(StoredValue.text) ?? .null }
    private static func real(_ value: Double?) -> StoredValue { value.map(StoredValue.real) ?? .null }
}
