/// One revenue event of a user in an experiment, kept in the user's facts so a report can sum
/// revenue and proceeds inside any window after the first exposure (`revenue_per_user_d14`) from one row per user.
public struct RevenueEntry: Sendable, Hashable {
    /// Microseconds from the user's first exposure to the event (never negative).
    public var offset: Int64
    /// The event's contribution to gross revenue (negative for refunds).
    public var amount: Double
    /// Its contribution to proceeds: what the team receives of it, with its sign.
    public var proceeds: Double
    /// `proceeds` are the revenue less the store's cut: tax is not known.
    public var proceedsBeforeTax: Bool
    /// The event's `product_id`: the plan the forecast renews the payer on.
    public var productID: String?

    public init(offset: Int64, amount: Double, proceeds: Double? = nil, proceedsBeforeTax: Bool? = nil, productID: String? = nil) {
        self.offset = offset
        self.amount = amount
        self.proceeds = proceeds ?? amount
        self.proceedsBeforeTax = proceedsBeforeTax ?? (proceeds == nil)
        self.productID = productID
    }
}

extension RevenueEntry {
    /// The facts column's format: a header of eight 0xFF bytes (an offset of -1, which no entry has),
    /// then per entry, little-endian: the offset (Int64), the amount's and the proceeds' IEEE 754 bits,
    /// 1 when the proceeds are before tax, else 0, and the product id's length in bytes (0 to 255; a
    /// longer id is not kept) and its UTF-8. Nil for no entries, so the column stays NULL for users who
    /// never paid.
    public static func encode(_ entries: [RevenueEntry]) -> [UInt8]? {
        guard !entries.isEmpty else { return nil }
        var bytes: [UInt8] = Array(repeating: 0xFF, count: headerSize)
        bytes.reserveCapacity(headerSize + entries.count * entrySize)
        for e in entries {
            withUnsafeBytes(of: e.offset.littleEndian) { bytes.append(contentsOf: $0) }
            withUnsafeBytes(of: e.amount.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
            withUnsafeBytes(of: e.proceeds.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
            bytes.append(e.proceedsBeforeTax ? 1 : 0)
            let id = e.productID.map { Array($0.utf8) } ?? []
            if id.count <= 255 {
                bytes.append(UInt8(id.count))
                bytes.append(contentsOf: id)
            } else {
                bytes.append(0)
            }
        }
        return bytes
    }

    static let headerSize = 8
    /// The fixed part of an entry; the product id follows it.
    static let entrySize = 26

    /// Reads what `encode` wrote; a trailing partial entry is ignored. A column written before proceeds
    /// (16 bytes an entry, no header) reads each entry's proceeds as its amount, before tax: those
    /// events named no store, and no store means no cut.
    public static func decode(_ bytes: UnsafeRawBufferPointer) -> [RevenueEntry] {
        var out: [RevenueEntry] = []
        out.reserveCapacity(bytes.count / entrySize)
        forEach(in: bytes, productID: { String(decoding: $0, as: UTF8.self) }) { out.append($0) }
        return out
    }

    /// `decode`'s entries one by one, each product id made by `productID` from its UTF-8 bytes: a walk of
    /// many rows (`FactBatch`) makes each distinct id once.
    public static func forEach(in bytes: UnsafeRawBufferPointer, productID: (UnsafeRawBufferPointer) -> String,
                               _ body: (RevenueEntry) -> Void) {
        let current = bytes.count >= headerSize && bytes.loadUnaligned(fromByteOffset: 0, as: Int64.self) == -1
        func fixed(_ at: Int) -> RevenueEntry {
            let offset = Int64(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: Int64.self))
            let amount = Double(bitPattern: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: at + 8, as: UInt64.self)))
            return RevenueEntry(offset: offset, amount: amount)
        }
        guard current else {
            for i in 0..<(bytes.count / 16) { body(fixed(i * 16)) }
            return
        }
        var at = headerSize
        while at + entrySize <= bytes.count {
            var entry = fixed(at)
            entry.proceeds = Double(bitPattern: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: at + 16, as: UInt64.self)))
            entry.proceedsBeforeTax = bytes[at + 24] != 0
            let length = Int(bytes[at + 25])
            at += entrySize
            guard at + length <= bytes.count else { break }
            if length > 0 { entry.productID = productID(UnsafeRawBufferPointer(rebasing: bytes[at..<(at + length)])) }
            at += length
            body(entry)
        }
    }
}
