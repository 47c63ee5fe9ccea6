/// A strict RFC 8259 JSON parser that records the line and column of every value and key.
///
/// Errors carry the position of the offending byte. Nesting is limited to `maxDepth`
/// so hostile input cannot overflow the stack.
public struct JSONReader {
    public struct SyntaxError: Error, Sendable, Equatable {
        public var message: String
        public var position: SourcePosition
    }

    public static let maxDepth = 256

    private let bytes: [UInt8]
    private var index = 0
    private var line = 1
    private var lineStart = 0
    private var depth = 0

    public static func parse(_ text: String) throws(SyntaxError) -> JSONNode {
        try parse(Array(text.utf8))
    }

    public static func parse(_ bytes: [UInt8]) throws(SyntaxError) -> JSONNode {
        var reader = JSONReader(bytes: bytes)
        // Skip a UTF-8 byte-order mark, which some editors write.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { reader.index = 3; reader.lineStart = 3 }
        reader.skipWhitespace()
        let node = try reader.parseValue()
        reader.skipWhitespace()
        if reader.index < bytes.count {
            throw reader.error("unexpected \(reader.describeCurrent()) after the end of the JSON value")
        }
        return node
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    // MARK: Positions

    private var position: SourcePosition {
        // Columns count scalars: skip UTF-8 continuation bytes between the line start and here.
        var column = 1
        var i = lineStart
        while i < index {
            if bytes[i] & 0xC0 != 0x80 { column += 1 }
            i += 1
        }
        return SourcePosition(line: line, column: column)
    }

    private func error(_ message: String) -> SyntaxError {
        SyntaxError(message: message, position: position)
    }

    private func describeCurrent() -> String {
        guard index < bytes.count else { return "end of file" }
        let b = bytes[index]
        if b >= 0x20 && b < 0x7F { return "'\(Character(Unicode.Scalar(b)))'" }
        return "byte 0x\(String(b, radix: 16, uppercase: true))"
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0D: index += 1
            case 0x0A:
                index += 1
                line += 1
                lineStart = index
            default: return
            }
        }
    }

    // MARK: Values

    private mutating func parseValue() throws(SyntaxError) -> JSONNode {
        guard index < bytes.count else { throw error("unexpected end of file; expected a value") }
        let start = position
        switch bytes[index] {
        case UInt8(ascii: "{"): return JSONNode(kind: try parseObject(), position: start)
        case UInt8(ascii: "["): return JSONNode(kind: try parseArray(), position: start)
        case UInt8(ascii: "\""): return JSONNode(kind: .string(try parseString()), position: start)
        case UInt8(ascii: "t"): try expectLiteral("true"); return JSONNode(kind: .bool(true), position: start)
        case UInt8(ascii: "f"): try expectLiteral("false"); return JSONNode(kind: .bool(false), position: start)
        case UInt8(ascii: "n"): try expectLiteral("null"); return JSONNode(kind: .null, position: start)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return JSONNode(kind: .number(try parseNumber()), position: start)
        case UInt8(ascii: "'"): throw error("strings must use double quotes, not single quotes")
        default: throw error("unexpected \(describeCurrent()); expected a value")
        }
    }

    private mutating func expectLiteral(_ word: StaticString) throws(SyntaxError) {
        let literal = word.withUTF8Buffer { Array($0) }
        guard bytes.count - index >= literal.count, Array(bytes[index..<index + literal.count]) == literal else {
            throw error("unexpected \(describeCurrent()); expected a value")
        }
        index += literal.count
    }

    private mutating func enter() throws(SyntaxError) {
        depth += 1
        if depth > Self.maxDepth { throw error("nesting deeper than \(Self.maxDepth) levels") }
    }

    private mutating func parseObject() throws(SyntaxError) -> JSONNode.Kind {
        try enter()
        defer { depth -= 1 }
        index += 1
        var members: [JSONMember] = []
        skipWhitespace()
        if index < bytes.count && bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                if index < bytes.count && bytes[index] == UInt8(ascii: "}") {
                    throw error("trailing comma before '}'; remove the last ','")
                }
                throw error("unexpected \(describeCurrent()); expected a key in double quotes")
            }
            let keyPosition = position
            let key = try parseString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                throw error("unexpected \(describeCurrent()); expected ':' after key \"\(key)\"")
            }
            index += 1
            skipWhitespace()
            members.append(JSONMember(key: key, keyPosition: keyPosition, value: try parseValue()))
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of file; expected ',' or '}'") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
            throw error("unexpected \(describeCurrent()); expected ',' or '}' (is a comma missing?)")
        }
    }

    private mutating func parseArray() throws(SyntaxError) -> JSONNode.Kind {
        try enter()
        defer { depth -= 1 }
        index += 1
        var items: [JSONNode] = []
        skipWhitespace()
        if index < bytes.count && bytes[index] == UInt8(ascii: "]") { index += 1; return .array(items) }
        while true {
            skipWhitespace()
            if index < bytes.count && bytes[index] == UInt8(ascii: "]") {
                throw error("trailing comma before ']'; remove the last ','")
            }
            items.append(try parseValue())
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of file; expected ',' or ']'") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(items) }
            throw error("unexpected \(describeCurrent()); expected ',' or ']' (is a comma missing?)")
        }
    }

    private mutating func parseString() throws(SyntaxError) -> String {
        index += 1  // opening quote
        var scalars = String.UnicodeScalarView()
        var runStart = index
        func flush(_ end: Int, into scalars: inout String.UnicodeScalarView) {
            if end > runStart { scalars.append(contentsOf: String(decoding: bytes[runStart..<end], as: UTF8.self).unicodeScalars) }
        }
        while true {
            guard index < bytes.count else { throw error("unterminated string; add the closing '\"'") }
            let b = bytes[index]
            if b == UInt8(ascii: "\"") {
                flush(index, into: &scalars)
                index += 1
                return String(scalars)
            }
            if b < 0x20 {
                throw error(b == 0x0A ? "line break inside a string; write it as \\n" : "control character inside a string; escape it")
            }
            if b == UInt8(ascii: "\\") {
                flush(index, into: &scalars)
                index += 1
                guard index < bytes.count else { throw error("unterminated string; add the closing '\"'") }
                let e = bytes[index]
                index += 1
                switch e {
                case UInt8(ascii: "\""): scalars.append("\"")
                case UInt8(ascii: "\\"): scalars.append("\\")
                case UInt8(ascii: "/"): scalars.append("/")
                case UInt8(ascii: "b"): scalars.append("\u{08}")
                case UInt8(ascii: "f"): scalars.append("\u{0C}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"): scalars.append(try parseUnicodeEscape())
                default:
                    index -= 1
                    throw error("invalid escape '\\\(Character(Unicode.Scalar(e)))'")
                }
                runStart = index
                continue
            }
            index += 1
        }
    }

    private mutating func parseHex4() throws(SyntaxError) -> UInt32 {
        guard bytes.count - index >= 4 else { throw error("incomplete \\u escape; expected 4 hex digits") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = bytes[index]
            let digit: UInt32
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(c - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(c - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(c - UInt8(ascii: "A") + 10)
            default: throw error("invalid \\u escape; expected 4 hex digits")
            }
            v = v << 4 | digit
            index += 1
        }
        return v
    }

    private mutating func parseUnicodeEscape() throws(SyntaxError) -> Unicode.Scalar {
        let first = try parseHex4()
        if (0xD800..<0xDC00).contains(first) {
            // A high surrogate must be followed by an escaped low surrogate.
            guard bytes.count - index >= 6, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                throw error("lone surrogate in \\u escape")
            }
            index += 2
            let second = try parseHex4()
            guard (0xDC00..<0xE000).contains(second) else { throw error("lone surrogate in \\u escape") }
            return Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))!
        }
        guard let scalar = Unicode.Scalar(first) else { throw error("lone surrogate in \\u escape") }
        return scalar
    }

    private mutating func parseNumber() throws(SyntaxError) -> Double {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number; expected a digit") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count && isDigit(bytes[index]) { throw error("numbers must not have leading zeros") }
        } else {
            while index < bytes.count && isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count && bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number; expected a digit after '.'") }
            while index < bytes.count && isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count && (bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E")) {
            index += 1
            if index < bytes.count && (bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-")) { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number; expected a digit in the exponent") }
            while index < bytes.count && isDigit(bytes[index]) { index += 1 }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        guard let v = Double(text), v.isFinite else {
            index = start
            throw error("number \(text) is out of range")
        }
        return v
    }

    private func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }
}
