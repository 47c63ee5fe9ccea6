import ExperimentDefinitions
#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

/// Up to `capacity` facts rows of one walk, column by column: what a report counts from, a batch at a
/// time, so no row becomes a `UserFacts` and no value the report only compares becomes a string.
///
/// Numbers sit in one column-major block (`Number`: each column `capacity` long), NULL as
/// `FactBatch.none`. The variant and the copy fallback reason are kept once per batch and named by
/// index, revenue entries' product ids once per batch too; user ids are bytes; revenue entries and
/// end spans are flat lists, each row's share ending where its `…End` column says. A batch carries no
/// placement or attributes: a walk that needs them reads `UserFacts`. A copy shares the number block:
/// a batch is lent to its reader for a while and then refilled, never kept.
public struct FactBatch: Sendable {
    public static let capacity = 4096
    /// A NULL number.
    public static let none = Int64.min

    /// The number columns, each `capacity` long in `numbers`, in this order.
    public enum Number: Int, CaseIterable, Sendable {
        case firstExposure, trialStart, firstPaid, firstConverted, firstCancel, refunded, allocationPeriod, expired
        case billingIssue, firstUncancel, strayUncancel, trialDays
        /// The IEEE 754 bits of the net revenue.
        case netRevenue
        /// 1 or 0.
        case crossedOver
        /// The row's index into `variants`.
        case variant
        /// The case's index among the type's cases (`allCases`), or `none`.
        case copySource, expiryKind
        /// The row's index into `fallbackReasons`, or `none`.
        case fallbackReason
        /// Where the row's user id, revenue entries, undone cancels and later ends end in their lists.
        case userIDEnd, entriesEnd, undoneEnd, laterEnd
    }

    /// Rows in the batch.
    public private(set) var count = 0
    /// The distinct variants of the batch's rows, in first-seen order.
    public private(set) var variants: [String] = []
    /// The distinct copy fallback reasons of the batch's rows (a row without one, or with an empty one, names none).
    public private(set) var fallbackReasons: [String] = []
    private var productIDs: [String] = []
    /// The UTF-8 of `variants`, `fallbackReasons` and `productIDs`, which a row's bytes are compared with.
    private var variantBytes: [[UInt8]] = [], fallbackReasonBytes: [[UInt8]] = [], productIDBytes: [[UInt8]] = []
    @usableFromInline let numbers = Numbers()
    private var userIDBytes: [UInt8] = []
    private var entries: [RevenueEntry] = []
    /// Each row's undone cancels, then its later ends.
    private var spans: [EndSpan] = []

    public init() {}

    public var isFull: Bool { count == Self.capacity }

    /// Empties the batch, keeping its storage.
    public mutating func removeAll() {
        count = 0
        variants.removeAll(keepingCapacity: true)
        fallbackReasons.removeAll(keepingCapacity: true)
        productIDs.removeAll(keepingCapacity: true)
        variantBytes.removeAll(keepingCapacity: true)
        fallbackReasonBytes.removeAll(keepingCapacity: true)
        productIDBytes.removeAll(keepingCapacity: true)
        userIDBytes.removeAll(keepingCapacity: true)
        entries.removeAll(keepingCapacity: true)
        spans.removeAll(keepingCapacity: true)
    }

    // The row being written is row `count`: set its columns, then `endRow()`.

    @inlinable
    public mutating func set(_ column: Number, _ value: Int64?) {
        numbers.base[column.rawValue &* Self.capacity &+ count] = value ?? Self.none
    }

    @inlinable
    public mutating func set(netRevenue: Double) { set(.netRevenue, Int64(bitPattern: netRevenue.bitPattern)) }

    @inlinable
    public mutating func set(crossedOver: Bool) { set(.crossedOver, crossedOver ? 1 : 0) }

    public mutating func set(copySource: CopySource?) { set(.copySource, copySource.map { Int64(Self.copySources.firstIndex(of: $0)!) }) }

    public mutating func set(expiryKind: SubscriptionEndKind?) { set(.expiryKind, expiryKind.map { Int64(Self.expiryKinds.firstIndex(of: $0)!) }) }

    public mutating func set(userID bytes: UnsafeBufferPointer<UInt8>) { userIDBytes.append(contentsOf: bytes) }

    /// The variant by its UTF-8 bytes: compared with the batch's few variants, a string made only for a new one.
    public mutating func set(variant bytes: UnsafeBufferPointer<UInt8>) {
        set(.variant, Int64(Self.intern(bytes, in: &variants, bytes: &variantBytes)))
    }

    /// The copy fallback reason by its UTF-8 bytes; no bytes (NULL or empty) is none.
    public mutating func set(fallbackReason bytes: UnsafeBufferPointer<UInt8>) {
        set(.fallbackReason, bytes.isEmpty ? nil : Int64(Self.intern(bytes, in: &fallbackReasons, bytes: &fallbackReasonBytes)))
    }

    /// The row's revenue entries from the facts column's bytes (`RevenueEntry.forEach`), each product id
    /// made once per batch.
    public mutating func appendRevenueEntries(_ blob: UnsafeRawBufferPointer) {
        guard !blob.isEmpty else { return }
        // The lists moved out for the walk, so its two closures do not both hold the batch.
        var ids: [String] = [], idBytes: [[UInt8]] = [], list: [RevenueEntry] = []
        swap(&ids, &productIDs)
        swap(&idBytes, &productIDBytes)
        swap(&list, &entries)
        RevenueEntry.forEach(in: blob, productID: { bytes in
            let k = Self.intern(bytes.assumingMemoryBound(to: UInt8.self), in: &ids, bytes: &idBytes)
            return ids[k]
        }) { list.append($0) }
        swap(&ids, &productIDs)
        swap(&idBytes, &productIDBytes)
        swap(&list, &entries)
    }

    public mutating func append(revenueEntries: [RevenueEntry]) { entries.append(contentsOf: revenueEntries) }

    public mutating func append(undoneCancels: [EndSpan], laterEnds: [EndSpan]) {
        if !undoneCancels.isEmpty { spans.append(contentsOf: undoneCancels) }
        set(.undoneEnd, Int64(spans.count))
        if !laterEnds.isEmpty { spans.append(contentsOf: laterEnds) }
    }

    /// Ends the row being written: its lists' ends are where they stand now.
    public mutating func endRow() {
        set(.userIDEnd, Int64(userIDBytes.count))
        set(.entriesEnd, Int64(entries.count))
        set(.laterEnd, Int64(spans.count))
        count += 1
    }

    /// A whole row, as `UserFacts` gives it (its placement and attributes left out): how a store that
    /// reads rows builds a batch.
    public mutating func append(_ row: UserFacts) {
        var id = row.userID.text
        id.withUTF8 { set(userID: $0) }
        var variant = row.variant
        variant.withUTF8 { set(variant: $0) }
        set(.firstExposure, row.firstExposureMicros)
        set(.trialStart, row.trialStartMicros)
        set(.firstPaid, row.firstPaidMicros)
        set(.firstConverted, row.firstConvertedMicros)
        set(.firstCancel, row.firstCancel?.microseconds)
        set(.refunded, row.refundedMicros)
        set(.allocationPeriod, row.allocationPeriodMicros)
        set(.expired, row.expiredMicros)
        set(.billingIssue, row.billingIssueMicros)
        set(.firstUncancel, row.firstUncancelMicros)
        set(.strayUncancel, row.strayUncancelMicros)
        set(.trialDays, row.grantedTrialDays.map { Int64($0) })
        set(netRevenue: row.netRevenue)
        set(crossedOver: row.crossedOver)
        set(copySource: row.copySource)
        set(expiryKind: row.expiryKind)
        var reason = row.copyFallbackReason ?? ""
        reason.withUTF8 { set(fallbackReason: $0) }
        append(revenueEntries: row.revenueEntries)
        append(undoneCancels: row.undoneCancels, laterEnds: row.laterEnds)
        endRow()
    }

    /// The index of `bytes` among `texts` (whose UTF-8 is `known`), appended as a string when new.
    private static func intern(_ bytes: UnsafeBufferPointer<UInt8>, in texts: inout [String], bytes known: inout [[UInt8]]) -> Int {
        for i in known.indices where known[i].count == bytes.count {
            if known[i].withUnsafeBufferPointer({ memcmp($0.baseAddress!, bytes.baseAddress!, bytes.count) == 0 }) { return i }
        }
        texts.append(String(decoding: bytes, as: UTF8.self))
        known.append(Array(bytes))
        return texts.count - 1
    }

    /// The number block: shared by copies of the batch, which is lent to one reader at a time and then
    /// refilled, so a column is written in place with no uniqueness check.
    @usableFromInline
    final class Numbers: @unchecked Sendable {
        @usableFromInline let base: UnsafeMutablePointer<Int64>

        init() {
            let size = FactBatch.capacity * Number.allCases.count
            base = .allocate(capacity: size)
            base.initialize(repeating: 0, count: size)
        }

        deinit { base.deallocate() }
    }

    @usableFromInline static let copySources = Array(CopySource.allCases)
    @usableFromInline static let expiryKinds = Array(SubscriptionEndKind.allCases)

    /// Calls `body` with the batch's rows, read in place.
    public func withRows<T>(_ body: (Rows) throws -> T) rethrows -> T {
        let n = UnsafeBufferPointer(start: numbers.base, count: Self.capacity * Number.allCases.count)
        return try withExtendedLifetime(numbers) {
            try userIDBytes.withUnsafeBufferPointer { u in
                try entries.withUnsafeBufferPointer { e in
                    try spans.withUnsafeBufferPointer { s in
                        try fallbackReasons.withUnsafeBufferPointer { f in
                            try body(Rows(count: count, numbers: n, userIDBytes: u, entries: e, spans: s, fallbackReasons: f))
                        }
                    }
                }
            }
        }
    }

    /// The batch's rows, valid inside `withRows`.
    public struct Rows {
        public let count: Int
        @usableFromInline let numbers: UnsafeBufferPointer<Int64>
        @usableFromInline let userIDBytes: UnsafeBufferPointer<UInt8>
        @usableFromInline let entries: UnsafeBufferPointer<RevenueEntry>
        @usableFromInline let spans: UnsafeBufferPointer<EndSpan>
        @usableFromInline let fallbackReasons: UnsafeBufferPointer<String>

        @inlinable
        public subscript(i: Int) -> Row { Row(rows: self, i: i) }

        @inlinable
        func number(_ column: Number, _ i: Int) -> Int64 { numbers[column.rawValue &* FactBatch.capacity &+ i] }

        /// Where row `i`'s share of a list starts: the end of the row before.
        @inlinable
        func start(_ end: Number, _ i: Int) -> Int { i == 0 ? 0 : Int(number(end, i &- 1)) }

        /// Row `i`'s index into `variants`.
        @inlinable
        public func variant(_ i: Int) -> Int { Int(number(.variant, i)) }

        /// Row `i`'s user id, as UTF-8.
        @inlinable
        public func userIDBytes(_ i: Int) -> UnsafeBufferPointer<UInt8> {
            UnsafeBufferPointer(rebasing: userIDBytes[start(.userIDEnd, i)..<Int(number(.userIDEnd, i))])
        }
    }

    /// One row of a batch, read in place.
    public struct Row: FactRow {
        @usableFromInline let rows: Rows
        @usableFromInline let i: Int

        @inlinable
        init(rows: Rows, i: Int) {
            self.rows = rows
            self.i = i
        }

        @inlinable
        func time(_ column: Number) -> Int64? {
            let value = rows.number(column, i)
            return value == FactBatch.none ? nil : value
        }

        public var userID: UserID { UserID(String(decoding: rows.userIDBytes(i), as: UTF8.self)) }
        @inlinable public var firstExposureMicros: Int64 { rows.number(.firstExposure, i) }
        @inlinable public var trialStartMicros: Int64? { time(.trialStart) }
        @inlinable public var firstPaidMicros: Int64? { time(.firstPaid) }
        @inlinable public var firstConvertedMicros: Int64? { time(.firstConverted) }
        @inlinable public var standingCancel: Int64? { time(.firstCancel) }
        @inlinable public var refundedMicros: Int64? { time(.refunded) }
        @inlinable public var billingIssueMicros: Int64? { time(.billingIssue) }
        @inlinable public var firstUncancelMicros: Int64? { time(.firstUncancel) }
        @inlinable public var strayUncancelMicros: Int64? { time(.strayUncancel) }
        @inlinable public var expiredMicros: Int64? { time(.expired) }
        @inlinable public var allocationPeriodMicros: Int64? { time(.allocationPeriod) }
        @inlinable public var grantedTrialDays: Int? { time(.trialDays).map { Int($0) } }
        @inlinable public var netRevenue: Double { Double(bitPattern: UInt64(bitPattern: rows.number(.netRevenue, i))) }
        @inlinable public var crossedOver: Bool { rows.number(.crossedOver, i) != 0 }
        @inlinable public var copySource: CopySource? { time(.copySource).map { FactBatch.copySources[Int($0)] } }
        @inlinable public var expiryKind: SubscriptionEndKind? { time(.expiryKind).map { FactBatch.expiryKinds[Int($0)] } }
        @inlinable public var copyFallbackReason: String? { time(.fallbackReason).map { rows.fallbackReasons[Int($0)] } }

        @inlinable
        public var revenueEntries: UnsafeBufferPointer<RevenueEntry> {
            UnsafeBufferPointer(rebasing: rows.entries[rows.start(.entriesEnd, i)..<Int(rows.number(.entriesEnd, i))])
        }

        /// Arrays made only for a row that has spans (few do).
        public var undoneCancels: [EndSpan] {
            Array(rows.spans[rows.start(.laterEnd, i)..<Int(rows.number(.undoneEnd, i))])
        }

        public var laterEnds: [EndSpan] {
            Array(rows.spans[Int(rows.number(.undoneEnd, i))..<Int(rows.number(.laterEnd, i))])
        }

        /// A batch carries no attributes: a walk that splits by them reads `UserFacts`.
        public func segmentValue(_ dimension: String) -> String? {
            preconditionFailure("a FactBatch row carries no placement or attributes (\(dimension))")
        }
    }
}
