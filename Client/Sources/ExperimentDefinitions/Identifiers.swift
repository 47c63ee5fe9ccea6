/// Text the stores tell apart by its UTF-8 bytes (SQLite's BINARY collation, PostgreSQL's "C"):
/// equal, hashed and ordered by bytes. "r\u{E9}" (é as one code point) and "re\u{301}" (e and a
/// combining accent) are two values here, where `String`'s `==` takes canonically equivalent
/// strings for one, and its `<` orders by Unicode rules no database uses.
///
/// Here rather than in Events because the AbctlClient, which may see only this target and
/// PaywallCopy, keys its assignment cache by user.
public protocol BytewiseText: Hashable, Comparable, Sendable, CustomStringConvertible, ExpressibleByStringInterpolation
where StringLiteralType == String, StringInterpolation == DefaultStringInterpolation {
    var text: String { get }
    init(_ text: String)
}

extension BytewiseText {
    public init(stringLiteral text: String) { self.init(text) }

    public var description: String { text }

    /// The length in UTF-8 bytes, the unit the limits on ids count in.
    @inlinable public var byteCount: Int { text.utf8.count }

    @inlinable public var isEmpty: Bool { text.isEmpty }

    /// Ids are at most 256 bytes of UTF-8; a longer one is refused, naming its field.
    public static var maxBytes: Int { 256 }

    /// Why this id is refused, or nil when it may be stored.
    public var refusal: String? {
        byteCount > Self.maxBytes ? "is longer than \(Self.maxBytes) bytes (\(byteCount))" : nil
    }

    /// The bytes that compare.
    @inlinable public var utf8: String.UTF8View { text.utf8 }

    @inlinable public static func == (a: Self, b: Self) -> Bool {
        a.text.utf8.count == b.text.utf8.count && UTF8Bytes.compare(a.text, b.text) == 0
    }

    @inlinable public static func < (a: Self, b: Self) -> Bool { UTF8Bytes.compare(a.text, b.text) < 0 }

    @inlinable public func hash(into hasher: inout Hasher) { UTF8Bytes.hash(text, into: &hasher) }
}

/// A user as events, the sticky record and reports name one (`user_id`).
public struct UserID: BytewiseText {
    public let text: String
    @inlinable public init(_ text: String) { self.text = text }
}

/// An event's id (`event_id`): with the user, the idempotency key of an event (the same pair
/// sent twice is stored once).
public struct EventID: BytewiseText {
    public let text: String
    @inlinable public init(_ text: String) { self.text = text }
}

/// Comparison and hashing of a string's UTF-8 bytes, without decoding them.
public enum UTF8Bytes {
    /// Negative, zero or positive as `a`'s bytes sort before, equal or after `b`'s (memcmp order,
    /// then the shorter first).
    @inlinable public static func compare(_ a: String, _ b: String) -> Int {
        if let result = a.utf8.withContiguousStorageIfAvailable({ x in
            b.utf8.withContiguousStorageIfAvailable { y in compare(UnsafeRawBufferPointer(x), UnsafeRawBufferPointer(y)) }
        }), let result { return result }
        // Bridged strings only (never on Linux): byte by byte.
        var x = a.utf8.makeIterator(), y = b.utf8.makeIterator()
        while true {
            switch (x.next(), y.next()) {
            case (nil, nil): return 0
            case (nil, _): return -1
            case (_, nil): return 1
            case let (p?, q?) where p != q: return p < q ? -1 : 1
            default: continue
            }
        }
    }

    @inlinable static func compare(_ x: UnsafeRawBufferPointer, _ y: UnsafeRawBufferPointer) -> Int {
        let common = min(x.count, y.count)
        var i = 0
        while i < common {
            let p = x[i], q = y[i]
            if p != q { return p < q ? -1 : 1 }
            i += 1
        }
        return x.count == y.count ? 0 : (x.count < y.count ? -1 : 1)
    }

    @inlinable public static func hash(_ text: String, into hasher: inout Hasher) {
        if text.utf8.withContiguousStorageIfAvailable({ hasher.combine(bytes: UnsafeRawBufferPointer($0)) }) == nil {
            for byte in text.utf8 { hasher.combine(byte) }
        }
    }
}
