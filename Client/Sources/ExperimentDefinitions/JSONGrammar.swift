/// The rules every JSON reader in abctl shares, so that a document means the same thing to each
/// of them (experiment files, request bodies, NDJSON events, test fixtures):
///
/// - RFC 8259 numbers, which must also fit a finite `Double`;
/// - `\uXXXX` escapes where a high surrogate must be followed by an escaped low surrogate and a
///   lone surrogate of either kind is refused (RFC 8259 §8.2 leaves this open);
/// - strings that are valid UTF-8 (nothing is silently replaced by U+FFFD);
/// - at most `maxDepth` nested arrays and objects.
///
/// The functions read an `UnsafeBufferPointer` at a byte index and are inlinable, so the fast
/// readers in other modules get them without a call.
public enum JSONGrammar {
    /// The deepest nesting of arrays and objects any reader accepts.
    public static let maxDepth = 64

    /// A broken rule and the 0-based byte offset where it was found.
    public struct Violation: Error, Sendable, Equatable {
        public var message: String
        public var offset: Int

        @inlinable public init(_ message: String, at offset: Int) {
            self.message = message
            self.offset = offset
        }
    }

    public static let depthMessage = "nesting deeper than \(maxDepth) levels"

    /// The number starting at `start` and the index just past it.
    @inlinable
    public static func number(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) throws(Violation) -> (value: Double, end: Int) {
        let end = try numberEnd(in: bytes, from: start)
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else { throw Violation("number \(text) is out of range", at: start) }
        return (value, end)
    }

    /// The index just past the number starting at `start`, by the grammar alone (a reader that
    /// converts later, such as the NDJSON scanner, refuses an out-of-range value then, naming its field).
    @inlinable
    public static func numberEnd(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) throws(Violation) -> Int {
        var i = start
        if i < bytes.count, bytes[i] == UInt8(ascii: "-") { i += 1 }
        i = try digits(in: bytes, at: i, "invalid number; expected a digit", leadingZeroAllowed: false)
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            i = try digits(in: bytes, at: i + 1, "invalid number; expected a digit after '.'", leadingZeroAllowed: true)
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            i += 1
            if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            i = try digits(in: bytes, at: i, "invalid number; expected a digit in the exponent", leadingZeroAllowed: true)
        }
        return i
    }

    /// Past one or more digits at `i`; an integer part may not have a leading zero.
    @inlinable
    static func digits(in bytes: UnsafeBufferPointer<UInt8>, at start: Int, _ missing: String, leadingZeroAllowed: Bool) throws(Violation) -> Int {
        var i = start
        while i < bytes.count, bytes[i] >= UInt8(ascii: "0"), bytes[i] <= UInt8(ascii: "9") { i += 1 }
        guard i > start else { throw Violation(missing, at: start) }
        if !leadingZeroAllowed, i - start > 1, bytes[start] == UInt8(ascii: "0") {
            throw Violation("numbers must not have leading zeros", at: start + 1)
        }
        return i
    }

    /// The scalar of the escape whose letter is at `i` (just past the backslash), and the index past it.
    @inlinable
    public static func escape(in bytes: UnsafeBufferPointer<UInt8>, at i: Int) throws(Violation) -> (scalar: Unicode.Scalar, end: Int) {
        let letter = bytes[i]
        switch letter {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): return (Unicode.Scalar(letter), i + 1)
        case UInt8(ascii: "b"): return ("\u{08}", i + 1)
        case UInt8(ascii: "f"): return ("\u{0C}", i + 1)
        case UInt8(ascii: "n"): return ("\n", i + 1)
        case UInt8(ascii: "r"): return ("\r", i + 1)
        case UInt8(ascii: "t"): return ("\t", i + 1)
        case UInt8(ascii: "u"): return try unicodeEscape(in: bytes, at: i + 1)
        default: throw Violation("invalid escape '\\\(Character(Unicode.Scalar(letter)))'", at: i)
        }
    }

    /// The scalar of the escape whose four hex digits start at `i` (just past `\u`), and the index
    /// past it: a surrogate pair when the first is a high surrogate; a lone surrogate is refused.
    @inlinable
    public static func unicodeEscape(in bytes: UnsafeBufferPointer<UInt8>, at i: Int) throws(Violation) -> (scalar: Unicode.Scalar, end: Int) {
        let first = try hex4(in: bytes, at: i)
        var end = i + 4
        var code = first
        if (0xD800..<0xDC00).contains(first) {
            guard end + 1 < bytes.count, bytes[end] == UInt8(ascii: "\\"), bytes[end + 1] == UInt8(ascii: "u") else {
                throw Violation("lone surrogate in \\u escape", at: end)
            }
            let second = try hex4(in: bytes, at: end + 2)
            guard (0xDC00..<0xE000).contains(second) else { throw Violation("lone surrogate in \\u escape", at: end + 6) }
            code = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
            end += 6
        }
        guard let scalar = Unicode.Scalar(code) else { throw Violation("lone surrogate in \\u escape", at: end) }
        return (scalar, end)
    }

    @inlinable
    static func hex4(in bytes: UnsafeBufferPointer<UInt8>, at start: Int) throws(Violation) -> UInt32 {
        guard bytes.count - start >= 4 else { throw Violation("invalid \\u escape; expected 4 hex digits", at: start) }
        var v: UInt32 = 0
        for i in start..<start + 4 {
            let c = bytes[i]
            let digit: UInt32
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(c - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(c - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(c - UInt8(ascii: "A") + 10)
            default: throw Violation("invalid \\u escape; expected 4 hex digits", at: i)
            }
            v = v << 4 | digit
        }
        return v
    }

    /// The string of UTF-8 bytes `start..<end`, refused when they are not valid UTF-8.
    @inlinable
    public static func utf8String(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, ascii: Bool) throws(Violation) -> String {
        let slice = UnsafeBufferPointer(rebasing: bytes[start..<end])
        if ascii { return String(decoding: slice, as: UTF8.self) }
        guard let s = String(validating: slice, as: UTF8.self) else { throw Violation("a string is not valid UTF-8", at: start) }
        return s
    }
}
