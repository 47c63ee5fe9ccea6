/// The `facts` table's columns as a report reads them, in the order both stores' SELECTs name them:
/// the one list a read of facts rows is made from. A column a read may leave unread belongs to a
/// part (`FactFields`); a read that does not ask for the part selects a NULL in its place, so every
/// column keeps its position whatever was asked. A new facts column is one entry here, its migration
/// in each store, and its field in `Layout` and in each store's decoding, which finds it there by name.
public enum FactColumns {
    public static let all: [FactColumn] = [
        FactColumn("experiment", .text, postgres: "text"),
        FactColumn("user_id", .text, postgres: "text"),
        FactColumn("variant", .text, postgres: "text"),
        FactColumn("first_exposure_ts", .integer, postgres: "bigint"),
        FactColumn("trial_start_ts", .integer, postgres: "bigint"),
        FactColumn("first_paid_ts", .integer, postgres: "bigint"),
        FactColumn("first_converted_ts", .integer, postgres: "bigint"),
        FactColumn("first_cancel_ts", .integer, postgres: "bigint"),
        FactColumn("refunded_ts", .integer, postgres: "bigint"),
        FactColumn("net_revenue", .real, postgres: "double precision"),
        FactColumn("copy_source", .text, postgres: "text"),
        FactColumn("copy_fallback_reason", .text, postgres: "text"),
        FactColumn("revenue_entries", .blob, postgres: "bytea", part: .revenueEntries),
        FactColumn("crossed_over", .flag, postgres: "boolean"),
        FactColumn("placement", .text, postgres: "text", part: .attributes),
        FactColumn("attributes", .blob, postgres: "bytea", part: .attributes),
        FactColumn("trial_days", .integer, postgres: "integer"),
        FactColumn("allocation_period_ts", .integer, postgres: "bigint"),
        FactColumn("expired_ts", .integer, postgres: "bigint"),
        FactColumn("expiry_kind", .text, postgres: "text"),
        FactColumn("billing_issue_ts", .integer, postgres: "bigint"),
        FactColumn("first_uncancel_ts", .integer, postgres: "bigint"),
        FactColumn("stray_uncancel_ts", .integer, postgres: "bigint"),
        FactColumn("undone_cancels", .text, postgres: "text"),
        FactColumn("later_ends", .text, postgres: "text"),
    ]

    /// The select list (without `SELECT`) reading the columns of `fields` and, in place of a column of
    /// a part not asked for, `null(column)`: a dialect's typed NULL. A walk of one experiment knows its
    /// id (`experimentKnown`) and selects a NULL for that column too.
    public static func select(_ fields: FactFields, experimentKnown: Bool = false, null: (FactColumn) -> String) -> String {
        all.map { column in
            let read = column.part.map { fields.contains($0) } ?? !(experimentKnown && column.name == "experiment")
            return read ? column.name : null(column)
        }.joined(separator: ", ")
    }

    /// Each column's position in `all`, and so in every select list made from it, found by name once:
    /// what both stores' decoding reads a row with, so neither counts columns.
    public struct Layout: Sendable {
        public let experiment, userID, variant, firstExposure, trialStart, firstPaid, firstConverted, firstCancel: Int
        public let refunded, netRevenue, copySource, copyFallbackReason, revenueEntries, crossedOver, placement: Int
        public let attributes, trialDays, allocationPeriod, expired, expiryKind, billingIssue, firstUncancel, strayUncancel: Int
        public let undoneCancels, laterEnds: Int

        init() {
            func at(_ name: String) -> Int {
                guard let index = FactColumns.all.firstIndex(where: { $0.name == name }) else {
                    preconditionFailure("no facts column \(name) in FactColumns.all")
                }
                return index
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

    public static let layout = Layout()
}

/// One column of `FactColumns.all`: its name, how a store reads its value, its PostgreSQL type (for
/// a typed NULL in its place) and the part of a row it belongs to, nil when every read reads it.
public struct FactColumn: Sendable {
    public let name: String
    public let storage: EventColumn.Storage
    public let postgresType: String
    public let part: FactFields?

    public init(_ name: String, _ storage: EventColumn.Storage, postgres: String, part: FactFields? = nil) {
        self.name = name
        self.storage = storage
        postgresType = postgres
        self.part = part
    }
}
