/// One revenue event of a user in an experiment, kept in the user's facts so a report can sum
/// revenue inside any window after the first exposure (`revenue_per_user_d14`) from one row per user.
public struct RevenueEntry: Sendable, Hashable {
    /// Microseconds from the user's first exposure to the event (never negative).
    public var offset: Int64
    /// The event's contribution to net revenue (negative for refunds).
    public var amount: Double

    public init(offset: Int64, amount: Double) {
        self.offset = offset
        self.amount = amount
    }
}

extension RevenueEntry {
    /// 16 bytes per entry, little-endian: the offset (Int64), then the amount's IEEE 754 bits; the facts
    /// column's format. Nil for no entries, so the column stays NULL for users who never paid.
    public static func encode(_ entries: [RevenueEntry]) -> [UInt8]? {
        guard !entries.isEmpty else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(entries.count * 16)
        for e in entries {
            withUnsafeBytes(of: e.offset.littleEndian) { bytes.append(contentsOf: $0) }
            withUnsafeBytes(of: e.amount.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
        }
        return bytes
    }

    /// Reads what `encode` wrote; a trailing partial entry is ignored.
    public static func decode(_ bytes: UnsafeRawBufferPointer) -> [RevenueEntry] {
        let count = bytes.count / 16
        guard count > 0 else { return [] }
        // Filled in place: appending checks capacity and uniqueness on every entry of every paying user's row.
        return [RevenueEntry](unsafeUninitializedCapacity: count) { out, initialized in
            for i in 0..<count {
                let offset = Int64(littleEndian: bytes.loadUnaligned(fromByteOffset: i * 16, as: Int64.self))
                let bits = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: i * 16 + 8, as: UInt64.self))
                (out.baseAddress! + i).initialize(to: RevenueEntry(offset: offset, amount: Double(bitPattern: bits)))
            }
            initialized = count
        }
    }
}
