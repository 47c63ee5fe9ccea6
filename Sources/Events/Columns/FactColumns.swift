import ExperimentDefinitions

/// The `facts` table's columns, in the order both stores name them: the one list facts rows are
/// read with and written from. Each entry says how a store reads its value and how a `UserFacts`
/// gives it, so both stores' inserts, their binding and COPY rows, and their select lists come from
/// here. A column a read may leave unread belongs to a part (`FactFields`); a read that does not ask
/// for the part selects a NULL in its place, so every column keeps its position whatever was asked.
/// A new facts column is one entry here, its migration in each store, and its field in `Layout` and
/// in each store's decoding, which finds it there by name.
public enum FactColumns {
    public static let all: [FactColumn] = [
        FactColumn("experiment", .text, postgres: "text", key: true) { .text($0.pointee.experiment) },
        FactColumn("user_id", .text, postgres: "text", key: true) { .text($0.pointee.userID.text) },
        FactColumn("variant", .text, postgres: "text") { .text($0.pointee.variant) },
        FactColumn("first_exposure_ts", .integer, postgres: "bigint") { .integer($0.pointee.firstExposure.microseconds) },
        FactColumn("trial_start_ts", .integer, postgres: "bigint") { time($0.pointee.trialStart) },
        FactColumn("first_paid_ts", .integer, postgres: "bigint") { time($0.pointee.firstPaid) },
        FactColumn("first_converted_ts", .integer, postgres: "bigint") { time($0.pointee.firstConverted) },
        FactColumn("first_cancel_ts", .integer, postgres: "bigint") { time($0.pointee.firstCancel) },
        FactColumn("refunded_ts", .integer, postgres: "bigint") { time($0.pointee.refundedAt) },
        FactColumn("net_revenue", .real, postgres: "double precision") { .real($0.pointee.netRevenue) },
        FactColumn("copy_source", .text, postgres: "text") { text($0.pointee.copySource?.rawValue) },
        FactColumn("copy_fallback_reason", .text, postgres: "text") { text($0.pointee.copyFallbackReason) },
        FactColumn("revenue_entries", .blob, postgres: "bytea", part: .revenueEntries) {
            RevenueEntry.encode($0.pointee.revenueEntries).map(StoredValue.blob) ?? .null
        },
        FactColumn("crossed_over", .flag, postgres: "boolean") { .flag($0.pointee.crossedOver) },
        FactColumn("placement", .text, postgres: "text", part: .attributes) { text($0.pointee.placement) },
        // NULL when the exposure carried none.
        FactColumn("attributes", .blob, postgres: "bytea", part: .attributes) {
            $0.pointee.attributes.isEmpty ? .null : .blob($0.pointee.attributes.encoded)
        },
        FactColumn("trial_days", .integer, postgres: "integer") { $0.pointee.grantedTrialDays.map { .integer(Int64($0)) } ?? .null },
        FactColumn("allocation_period_ts", .integer, postgres: "bigint") { time($0.pointee.allocationPeriod) },
        FactColumn("expired_ts", .integer, postgres: "bigint") { time($0.pointee.expiredAt) },
        FactColumn("expiry_kind", .text, postgres: "text") { text($0.pointee.expiryKind?.rawValue) },
        FactColumn("billing_issue_ts", .integer, postgres: "bigint") { time($0.pointee.billingIssueAt) },
        FactColumn("first_uncancel_ts", .integer, postgres: "bigint") { time($0.pointee.firstUncancel) },
        FactColumn("stray_uncancel_ts", .integer, postgres: "bigint") { time($0.pointee.strayUncancel) },
        FactColumn("undone_cancels", .text, postgres: "text") { text(EndSpan.encode($0.pointee.undoneCancels)) },
        FactColumn("later_ends", .text, postgres: "text") { text(EndSpan.encode($0.pointee.laterEnds)) },
    ]

    /// The column names in `all`'s order, comma-separated: the list an INSERT, a COPY or a SELECT names.
    public static let names = all.map(\.name).joined(separator: ", ")

    /// Each column's value reader, in `all`'s order: what a store's write calls per row.
    public static let readers: [@Sendable (UnsafePointer<UserFacts>) -> StoredValue] = all.map(\.read)

    /// The write of facts rows: an INSERT of `rows` (a VALUES list or a SELECT, either giving the
    /// columns in `names`' order) that, for a user already with a row in the experiment, sets every
    /// column but the key to `offered(position, column)`, the row offered's value (`excluded.name`,
    /// or the parameter at `position` in `all`). Both dialects read it alike.
    public static func upsert(_ rows: String, offered: (Int, FactColumn) -> String = { "excluded.\($1.name)" }) -> String {
        let key = all.filter(\.key).map(\.name).joined(separator: ", ")
        let set = all.enumerated().filter { !$0.element.key }.map { "\($0.element.name) = \(offered($0.offset, $0.element))" }
        return "INSERT INTO facts (\(names)) \(rows) ON CONFLICT (\(key)) DO UPDATE SET \(set.joined(separator: ", "))"
    }

    /// The columns a walk of times reads (`FactTimes`), fewer than a row's, so neither store copies or
    /// sends the rest.
    public static let times = FactSelection([
        \.variant, \.userID, \.firstExposure, \.trialStart, \.firstPaid, \.firstConverted, \.firstCancel, \.refunded,
        \.allocationPeriod, \.billingIssue, \.trialDays, \.undoneCancels,
    ])

    private static func time(_ value: Timestamp?) -> StoredValue { value.map { .integer($0.microseconds) } ?? .null }
    private static func text(_ value: String?) -> StoredValue { value.map(StoredValue.text) ?? .null }

    /// The select list (without `SELECT`) reading the columns of `fields` and, in place of a column of
    /// a part not asked for, `null(column)`: a dialect's typed NULL. A walk of one experiment knows its
    /// id (`experimentKnown`) and selects a NULL for that column too.
    public static func select(_ fields: FactFields, experimentKnown: Bool = false, null: (FactColumn) -> String) -> String {
        all.map { column in
            let read = column.part.map { fields.contains($0) } ?? !(experimentKnown && column.name == "experiment")
            return read ? column.name : null(column)
        }.joined(separator: ", ")
    }

    /// Each column's position in a select list (`all`'s, or a selection's), found by name once: what
    /// both stores' decoding reads a row with, so neither counts columns. A column the list leaves
    /// out is at -1, and is not to be read.
    public struct Layout: Sendable {
        public let experiment, userID, variant, firstExposure, trialStart, firstPaid, firstConverted, firstCancel: Int
        public let refunded, netRevenue, copySource, copyFallbackReason, revenueEntries, crossedOver, placement: Int
        public let attributes, trialDays, allocationPeriod, expired, expiryKind, billingIssue, firstUncancel, strayUncancel: Int
        public let undoneCancels, laterEnds: Int

        init(_ columns: [FactColumn]) {
            func at(_ name: String) -> Int {
                precondition(FactColumns.all.contains { $0.name == name }, "no facts column \(name) in FactColumns.all")
                return columns.firstIndex { $0.name == name } ?? -1
            }
            experiment = at("experiment"); userID = at("user_id"); variant = at("variant")
            firstExposure = at("first_exposure_ts"); trialStart = at("trial_start_ts"); firstPaid = at("first_paid_ts")
            firstConverted = at("first_converted_ts"); firstCancel = at("first_cancel_ts"); refunded = at("refunded_ts")
            netRevenue = at("net_revenue"); copySource = at("copy_source"); copyFallbackReason = at("copy_fallback_reason")
            revenueEntries = at("revenue_entries"); crossedOver = at("crossed_over"); placement = at("placement")
            attributes = at("attributes"); trialDays = at("trial_days"); allocationPeriod = at("allocation_period_ts")
            expired = at("expired_ts"); expiryKind = at("expiry_kind"); billingIssue = at("billing_issue_ts")
            firstUncancel = at("first_uncancel_ts"); strayUncancel = at("stray_uncancel_ts")
            undoneCancels = at("undone_cancels"); laterEnds = at("later_ends")
        }
    }

    public static let layout = Layout(all)
}

/// Some of the facts columns, read by a walk that needs no more: its select list (without `SELECT`)
/// and where each column sits in it.
public struct FactSelection: Sendable {
    public let columns: [FactColumn]
    public let list: String
    public let layout: FactColumns.Layout

    /// The columns `FactColumns.layout` finds at `fields`, in that order.
    init(_ fields: [KeyPath<FactColumns.Layout, Int>]) {
        columns = fields.map { FactColumns.all[FactColumns.layout[keyPath: $0]] }
        list = columns.map(\.name).joined(separator: ", ")
        layout = FactColumns.Layout(columns)
    }
}

/// One column of `FactColumns.all`: its name, how a store reads its value, its PostgreSQL type (for
/// a typed NULL in its place), whether it is part of the primary key, the part of a row it belongs
/// to (nil when every read reads it) and how a `UserFacts` gives its value.
public struct FactColumn: Sendable {
    public let name: String
    public let storage: EventColumn.Storage
    public let postgresType: String
    /// One of the columns a row is known by (experiment and user): an upsert's conflict target.
    public let key: Bool
    public let part: FactFields?
    /// The column's value for the facts row at the pointer: by pointer, so a write reads the one
    /// field in place rather than copying the row.
    public let read: @Sendable (UnsafePointer<UserFacts>) -> StoredValue

    public init(_ name: String, _ storage: EventColumn.Storage, postgres: String, key: Bool = false, part: FactFields? = nil,
                read: @escaping @Sendable (UnsafePointer<UserFacts>) -> StoredValue) {
        self.name = name
        self.storage = storage
        postgresType = postgres
        self.key = key
        self.part = part
        self.read = read
    }
}
