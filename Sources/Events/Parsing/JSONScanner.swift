import ExperimentDefinitions
#if canImport(Glibc)
import Glibc
#endif
/// A strict JSON scanner over UTF-8 bytes, tuned for flat event objects: it validates the
/// whole text but only materialises the values a caller asks for. Numbers, escapes and the
/// nesting limit follow `JSONGrammar`, as `JSONReader` and the server's `BodyParser` do; a
/// number beyond a Double is refused by the field that reads it (`number(_:)`), not here.
struct JSONScanner {
    struct SyntaxError: Error {
        var message: String
        /// Byte offset into the scanned text.
        var offset: Int
    }

    /// A scanned value: byte ranges into the text, decoded on demand.
    enum Value {
        case string(start: Int, end: Int, plain: Bool)
        case number(start: Int, end: Int)
        case bool(Bool)
        case null
        /// `start` is the offset of the opening brace, so a caller may scan the members.
        case object(start: Int)
        case array

        var kindName: String {
            switch self {
            case .string: "a string"
            case .number: "a number"
            case .bool: "a boolean"
            case .null: "null"
            case .object: "an object"
            case .array: "an array"
            }
        }
    }

    let bytes: UnsafeBufferPointer<UInt8>
    var i: Int = 0
    static let maxDepth = JSONGrammar.maxDepth

    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    var atEnd: Bool { i >= bytes.count }

    mutating func skipWhitespace() {
        while i < bytes.count {
            let c = bytes[i]
            if c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 { i += 1 } else { return }
        }
    }

    func error(_ message: String) -> SyntaxError { SyntaxError(message: message, offset: i) }

    func describeCurrent() -> String {
        guard i < bytes.count else { return "end of line" }
        let c = bytes[i]
        if c >= 0x20 && c < 0x7F { return "'\(Character(Unicode.Scalar(c)))'" }
        return "byte 0x" + String(c, radix: 16)
    }

    mutating func expect(_ c: UInt8, _ what: String) throws(SyntaxError) {
        skipWhitespace()
        guard i < bytes.count, bytes[i] == c else { throw error("expected \(what), found \(describeCurrent())") }
        i += 1
    }

    /// Scans a whole object, calling `field` with each key, as a scanned string (`index(of:in:)`
    /// or `decode` reads it), and its value. Leaves `i` after the closing brace.
    mutating func scanObject(depth: Int = 0, _ field: (_ key: Value, _ value: Value) throws(SyntaxError) -> Void) throws(SyntaxError) {
        try expect(0x7B, "'{'")
        skipWhitespace()
        if i < bytes.count, bytes[i] == 0x7D { i += 1; return }
        while true {
            skipWhitespace()
            guard i < bytes.count, bytes[i] == 0x22 else { throw error("expected a key string, found \(describeCurrent())") }
            let key = try scanString()
            try expect(0x3A, "':'")
            let value = try scanValue(depth: depth + 1)
            try field(key, value)
            skipWhitespace()
            guard i < bytes.count else { throw error("expected ',' or '}', found end of line") }
            if bytes[i] == 0x2C { i += 1; continue }
            if bytes[i] == 0x7D { i += 1; return }
            throw error("expected ',' or '}', found \(describeCurrent())")
        }
    }

    mutating func scanValue(depth: Int) throws(SyntaxError) -> Value {
        skipWhitespace()
        guard i < bytes.count else { throw error("expected a value, found end of line") }
        switch bytes[i] {
        case 0x22:
            return try scanString()
        case 0x7B:
            guard depth < JSONScanner.maxDepth else { throw error(JSONGrammar.depthMessage) }
            let start = i
            try scanObject(depth: depth) { (_, _) throws(SyntaxError) in }
            return .object(start: start)
        case 0x5B:
            guard depth < JSONScanner.maxDepth else { throw error(JSONGrammar.depthMessage) }
            i += 1
            skipWhitespace()
            if i < bytes.count, bytes[i] == 0x5D { i += 1; return .array }
            while true {
                _ = try scanValue(depth: depth + 1)
                skipWhitespace()
                guard i < bytes.count else { throw error("expected ',' or ']', found end of line") }
                if bytes[i] == 0x2C { i += 1; continue }
                if bytes[i] == 0x5D { i += 1; return .array }
                throw error("expected ',' or ']', found \(describeCurrent())")
            }
        case 0x74: try literal("true"); return .bool(true)
        case 0x66: try literal("false"); return .bool(false)
        case 0x6E: try literal("null"); return .null
        case 0x2D, 0x30...0x39: return try scanNumber()
        default: throw error("expected a value, found \(describeCurrent())")
        }
    }

    mutating func literal(_ word: StaticString) throws(SyntaxError) {
        let n = word.utf8CodeUnitCount
        guard i + n <= bytes.count else { throw error("invalid literal") }
        let p = word.utf8Start
        for k in 0..<n where bytes[i + k] != p[k] { throw error("invalid literal") }
        i += n
    }

    mutating func scanNumber() throws(SyntaxError) -> Value {
        let start = i
        do {
            i = try JSONGrammar.numberEnd(in: bytes, from: start)
        } catch {
            throw SyntaxError(message: error.message, offset: error.offset)
        }
        return .number(start: start, end: i)
    }

    /// Scans a string starting at the opening quote; checks escapes, control characters and UTF-8.
    mutating func scanString() throws(SyntaxError) -> Value {
        i += 1
        let start = i
        var plain = true
        while i < bytes.count {
            let c = bytes[i]
            if c == 0x22 {
                let end = i
                i += 1
                return .string(start: start, end: end, plain: plain)
            }
            if c == 0x5C {
                plain = false
                i += 1
                guard i < bytes.count else { break }
                do {
                    i = try JSONGrammar.escape(in: bytes, at: i).end
                } catch {
                    throw SyntaxError(message: error.message, offset: error.offset)
                }
                continue
            }
            if c < 0x20 { throw error("control character in string") }
            if c >= 0x80 {
                plain = false
                try skipUTF8Scalar()
                continue
            }
            i += 1
        }
        throw error("unterminated string")
    }

    /// Validates one multi-byte UTF-8 sequence (no overlongs, no surrogates, at most U+10FFFF).
    mutating func skipUTF8Scalar() throws(SyntaxError) {
        let c = bytes[i]
        let length: Int
        var lower: UInt8 = 0x80, upper: UInt8 = 0xBF
        switch c {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; lower = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; upper = 0x9F
        case 0xF0: length = 4; lower = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; upper = 0x8F
        default: throw error("invalid UTF-8")
        }
        guard i + length <= bytes.count else { throw error("invalid UTF-8") }
        let second = bytes[i + 1]
        guard second >= lower && second <= upper else { throw error("invalid UTF-8") }
        for k in 2..<max(2, length) where bytes[i + k] & 0xC0 != 0x80 { throw error("invalid UTF-8") }
        i += length
    }

    /// The position of a scanned string in `names` (UTF-8 bytes), compared without building a
    /// `String` unless the key has escapes; nil when it is none of them.
    func index(of value: Value, in names: [[UInt8]]) -> Int? {
        guard case let .string(start, end, plain) = value else { return nil }
        if !plain { return names.firstIndex(of: Array(decode(value).utf8)) }
        let count = end - start
        guard let key = bytes.baseAddress.map({ $0 + start }) else { return nil }
        return names.firstIndex { name in
            name.count == count && name.withUnsafeBufferPointer { memcmp($0.baseAddress!, key, count) == 0 }
        }
    }

    /// The text of a scanned string (already validated by `scanString`, so every escape decodes).
    func decode(_ value: Value) -> String {
        guard case let .string(start, end, plain) = value else { return "" }
        let slice = UnsafeBufferPointer(rebasing: bytes[start..<end])
        if plain { return String(decoding: slice, as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(end - start)
        var k = start
        while k < end {
            let c = bytes[k]
            guard c == 0x5C else { out.append(c); k += 1; continue }
            guard let (scalar, next) = try? JSONGrammar.escape(in: bytes, at: k + 1) else { break }
            UTF8.encode(scalar) { out.append($0) }
            k = next
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The value of a scanned number; nil when it overflows a Double (the caller names the field).
    func number(_ value: Value) -> Double? {
        guard case let .number(start, end) = value else { return nil }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
        return Double(text).flatMap { $0.isFinite ? $0 : nil }
    }

    /// A short excerpt of the scanned string for error messages.
    func excerpt(_ value: Value, limit: Int = 40) -> String {
        let text = decode(value)
        return text.count > limit ? String(text.prefix(limit)) + "…" : text
    }
}
