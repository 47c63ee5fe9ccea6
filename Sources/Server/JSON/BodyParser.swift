import ExperimentDefinitions
import Glibc

/// A strict RFC 8259 parser for request bodies that builds values without positions, with
/// helpers for the assign body's one-pass reader (`AssignBody`).
///
/// Numbers, escapes, UTF-8 and the nesting limit are `JSONGrammar`'s, the rules
/// `JSONReader` follows too; tests check that the two accept the same documents with the same
/// values (`JSONReadersAgreeTests`).
public struct BodyParser {
    public struct SyntaxError: Error, Sendable, Equatable {
        public var message: String
        /// 1-based byte offset of the problem.
        public var offset: Int
    }

    public static let maxDepth = JSONGrammar.maxDepth

    let bytes: UnsafeBufferPointer<UInt8>
    var i = 0

    public static func parse(_ body: [UInt8]) throws(SyntaxError) -> JSONValue {
        try body.withUnsafeBufferPointer { (buffer) throws(SyntaxError) -> JSONValue in
            var parser = BodyParser(bytes: buffer)
            if buffer.starts(with: [0xEF, 0xBB, 0xBF]) { parser.i = 3 }
            parser.skipWhitespace()
            let value = try parser.value(depth: 0)
            parser.skipWhitespace()
            if parser.i < buffer.count { throw parser.error("unexpected \(parser.describe()) after the JSON value") }
            return value
        }
    }

    init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    private func error(_ message: String) -> SyntaxError { SyntaxError(message: message, offset: i + 1) }

    private func error(_ violation: JSONGrammar.Violation) -> SyntaxError { SyntaxError(message: violation.message, offset: violation.offset + 1) }

    private func describe() -> String {
        guard i < bytes.count else { return "end of body" }
        let b = bytes[i]
        return b >= 0x20 && b < 0x7F ? "'\(Character(Unicode.Scalar(b)))'" : "byte 0x\(String(b, radix: 16, uppercase: true))"
    }

    mutating func skipWhitespace() {
        while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09 { i += 1 }
    }

    mutating func value(depth: Int) throws(SyntaxError) -> JSONValue {
        guard i < bytes.count else { throw error("unexpected end of body; expected a value") }
        switch bytes[i] {
        case UInt8(ascii: "{"): return try object(depth: depth + 1)
        case UInt8(ascii: "["): return try array(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw error("unexpected \(describe()); expected a value")
        }
    }

    mutating func literal(_ word: StaticString) throws(SyntaxError) {
        let n = word.utf8CodeUnitCount
        guard i + n <= bytes.count else { throw error("unexpected \(describe()); expected a value") }
        for k in 0..<n where bytes[i + k] != word.utf8Start[k] { throw error("unexpected \(describe()); expected a value") }
        i += n
    }

    mutating func object(depth: Int) throws(SyntaxError) -> JSONValue {
        var members: [(String, JSONValue)] = []
        members.reserveCapacity(8)   // request objects are small: one allocation instead of four
        _ = try forEachMember(depth: depth) { key, value in members.append((key, value)); return true }
        return .object(members)
    }

    /// Known key names, whose `String`s are made once instead of per request.
    struct KeyTable: Sendable {
        let names: [StaticString]
        let strings: [String]
        init(_ names: [StaticString]) {
            self.names = names
            strings = names.map { "\($0)" }
        }
    }

    /// Reads the object at `i`, handing each member to `member` in order. When `member` returns
    /// false, reading stops there and the result is false. Keys found in `known` (written
    /// without escapes) are given as its strings.
    mutating func forEachMember(depth: Int, known: KeyTable? = nil, _ member: (String, JSONValue) -> Bool) throws(SyntaxError) -> Bool {
        if try open(depth: depth, closing: UInt8(ascii: "}")) { return true }
        repeat {
            try expectKey()
            let key = if let known, let n = plainKey(among: known.names) { known.strings[n] } else { try string() }
            try colon()
            if !member(key, try value(depth: depth)) { return false }
        } while try !close(UInt8(ascii: "}"))
        return true
    }

    // The grammar every container reader shares.

    /// Past the opening bracket at `i` and any whitespace; true when the container is empty (its
    /// closing bracket read too).
    private mutating func open(depth: Int, closing: UInt8) throws(SyntaxError) -> Bool {
        if depth > Self.maxDepth { throw error(JSONGrammar.depthMessage) }
        i += 1
        skipWhitespace()
        if i < bytes.count, bytes[i] == closing { i += 1; return true }
        return false
    }

    /// After an item: false past a ',' (more follow), true past the closing bracket.
    mutating func close(_ closing: UInt8) throws(SyntaxError) -> Bool {
        skipWhitespace()
        if i < bytes.count {
            if bytes[i] == UInt8(ascii: ",") { i += 1; skipWhitespace(); return false }
            if bytes[i] == closing { i += 1; return true }
        }
        let expected = closing == UInt8(ascii: "}") ? "',' or '}'" : "',' or ']'"
        throw error(i < bytes.count ? "unexpected \(describe()); expected \(expected)" : "unexpected end of body; expected \(expected)")
    }

    private mutating func expectKey() throws(SyntaxError) {
        skipWhitespace()
        guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { throw error("unexpected \(describe()); expected a string key") }
    }

    /// The ':' after a key, and the whitespace around it.
    mutating func colon() throws(SyntaxError) {
        skipWhitespace()
        guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw error("unexpected \(describe()); expected ':'") }
        i += 1
        skipWhitespace()
    }

    /// The position in `names` of the key at `i` when it is one of them written without
    /// escapes, with `i` moved past it; nil otherwise.
    mutating func plainKey(among names: [StaticString]) -> Int? {
        guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { return nil }
        let start = i + 1
        var end = start
        while end < bytes.count, bytes[end] != UInt8(ascii: "\""), bytes[end] != UInt8(ascii: "\\") { end += 1 }
        guard end < bytes.count, bytes[end] == UInt8(ascii: "\"") else { return nil }
        let length = end - start
        for (n, name) in names.enumerated() where name.utf8CodeUnitCount == length
            && memcmp(bytes.baseAddress! + start, name.utf8Start, length) == 0 {
            i = end + 1
            return n
        }
        return nil
    }

    mutating func array(depth: Int) throws(SyntaxError) -> JSONValue {
        var items: [JSONValue] = []
        if try open(depth: depth, closing: UInt8(ascii: "]")) { return .array(items) }
        repeat {
            items.append(try value(depth: depth))
        } while try !close(UInt8(ascii: "]"))
        return .array(items)
    }

    /// Moves past the object at `i`, checking it as `object(depth:)` would, without building it;
    /// false when `stringValues` and a member's value is not a string. Strings with escapes or
    /// non-ASCII bytes, and numbers, are checked by the readers that build.
    mutating func skipObject(depth: Int, stringValues: Bool) throws(SyntaxError) -> Bool {
        if try open(depth: depth, closing: UInt8(ascii: "}")) { return true }
        repeat {
            try expectKey()
            try skipString()
            try colon()
            guard i < bytes.count else { throw error("unexpected end of body; expected a value") }
            if stringValues, bytes[i] != UInt8(ascii: "\"") { return false }
            try skipValue(depth: depth)
        } while try !close(UInt8(ascii: "}"))
        return true
    }

    /// Moves past the value at `i`, checking it as `value(depth:)` would.
    private mutating func skipValue(depth: Int) throws(SyntaxError) {
        guard i < bytes.count else { throw error("unexpected end of body; expected a value") }
        switch bytes[i] {
        case UInt8(ascii: "\""): try skipString()
        case UInt8(ascii: "{"): _ = try skipObject(depth: depth + 1, stringValues: false)
        case UInt8(ascii: "["):
            if try open(depth: depth + 1, closing: UInt8(ascii: "]")) { return }
            repeat {
                try skipValue(depth: depth + 1)
            } while try !close(UInt8(ascii: "]"))
        default: _ = try value(depth: depth)   // literals and numbers
        }
    }

    private mutating func skipString() throws(SyntaxError) {
        let start = i
        i += 1
        while i < bytes.count, bytes[i] != UInt8(ascii: "\""), bytes[i] != UInt8(ascii: "\\"), bytes[i] >= 0x20, bytes[i] < 0x80 { i += 1 }
        if i < bytes.count, bytes[i] == UInt8(ascii: "\"") { i += 1; return }
        i = start
        _ = try string()
    }

    private mutating func number() throws(SyntaxError) -> Double {
        do {
            let (value, end) = try JSONGrammar.number(in: bytes, from: i)
            i = end
            return value
        } catch {
            throw self.error(error)
        }
    }

    mutating func string() throws(SyntaxError) -> String {
        i += 1
        let start = i
        // Fast path: no escapes. `high` gathers the top bits, so ASCII needs no second pass.
        var high: UInt8 = 0
        while i < bytes.count, bytes[i] != UInt8(ascii: "\""), bytes[i] != UInt8(ascii: "\\"), bytes[i] >= 0x20 {
            high |= bytes[i]
            i += 1
        }
        guard i < bytes.count else { throw error("unterminated string") }
        if bytes[i] == UInt8(ascii: "\"") {
            let slice = UnsafeBufferPointer(rebasing: bytes[start..<i])
            i += 1
            return high < 0x80 ? String(decoding: slice, as: UTF8.self) : try validUTF8(slice, at: start)
        }
        var out: [UInt8] = Array(bytes[start..<i])
        while true {
            guard i < bytes.count else { throw error("unterminated string") }
            let b = bytes[i]
            if b == UInt8(ascii: "\"") { i += 1; break }
            if b < 0x20 { throw error("control character in a string; escape it") }
            if b != UInt8(ascii: "\\") { out.append(b); i += 1; continue }
            i += 1
            guard i < bytes.count else { throw error("unterminated escape") }
            do {
                let (scalar, end) = try JSONGrammar.escape(in: bytes, at: i)
                UTF8.encode(scalar) { out.append($0) }
                i = end
            } catch {
                throw self.error(error)
            }
        }
        return try out.withUnsafeBufferPointer { (buffer) throws(SyntaxError) -> String in try validUTF8(buffer, at: start) }
    }

    private func validUTF8(_ slice: UnsafeBufferPointer<UInt8>, at start: Int) throws(SyntaxError) -> String {
        // ASCII is valid UTF-8 as it stands: skip the validating initialiser (nearly every key and
        // id a request sends).
        do {
            return try JSONGrammar.utf8String(slice, 0, slice.count, ascii: !slice.contains(where: { $0 >= 0x80 }))
        } catch {
            throw SyntaxError(message: error.message, offset: start + 1)
        }
    }
}
