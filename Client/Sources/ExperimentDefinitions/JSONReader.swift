/// A strict RFC 8259 JSON parser that records the line and column of every value and key.
///
/// Errors carry the position of the offending byte. Numbers, escapes, UTF-8 and the nesting
/// limit follow `JSONGrammar`, the rules every reader shares. Columns are counted as the
/// reader moves along a line, so a long line costs no more than a short one per value.
public struct JSONReader {
    public struct SyntaxError: Error, Sendable, Equatable {
        public var message: String
        public var position: SourcePosition
    }

    public static let maxDepth = JSONGrammar.maxDepth

    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    private var line = 1
    private var lineStart = 0
    private var depth = 0
    /// The column of `counted`, a byte on the current line at or before `index`: positions are
    /// asked for in increasing order, so each byte of a line is counted once.
    private var counted = 0
    private var countedColumn = 1

    public static func parse(_ text: String) throws(SyntaxError) -> JSONNode {
        try parse(Array(text.utf8))
    }

    public static func parse(_ bytes: [UInt8]) throws(SyntaxError) -> JSONNode {
        try bytes.withUnsafeBufferPointer { (buffer) throws(SyntaxError) -> JSONNode in
            var reader = JSONReader(bytes: buffer)
            // Skip a UTF-8 byte-order mark, which some editors write.
            if buffer.starts(with: [0xEF, 0xBB, 0xBF]) { reader.index = 3; reader.lineStart = 3; reader.counted = 3 }
            reader.skipWhitespace()
            let node = try reader.parseValue()
            reader.skipWhitespace()
            if reader.index < buffer.count {
                throw reader.error("unexpected \(reader.describeCurrent()) after the end of the JSON value")
            }
            return node
        }
    }

    private init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    // MARK: Positions

    /// The position of `index`; columns count scalars (UTF-8 continuation bytes are skipped).
    private mutating func position() -> SourcePosition {
        if counted < lineStart || counted > index { counted = lineStart; countedColumn = 1 }
        while counted < index {
            if bytes[counted] & 0xC0 != 0x80 { countedColumn += 1 }
            counted += 1
        }
        return SourcePosition(line: line, column: countedColumn)
    }

    private func error(_ message: String) -> SyntaxError {
        var copy = self
        return SyntaxError(message: message, position: copy.position())
    }

    /// A shared rule broken at its byte offset.
    private func error(_ violation: JSONGrammar.Violation) -> SyntaxError {
        var copy = self
        copy.index = violation.offset
        return copy.error(violation.message)
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
        let start = position()
        switch bytes[index] {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            try enter()
            defer { depth -= 1 }
            return JSONNode(kind: bytes[index] == UInt8(ascii: "{") ? try parseObject() : try parseArray(), position: start)
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
        let n = word.utf8CodeUnitCount
        guard bytes.count - index >= n, (0..<n).allSatisfy({ bytes[index + $0] == word.utf8Start[$0] }) else {
            throw error("unexpected \(describeCurrent()); expected a value")
        }
        index += n
    }

    private mutating func enter() throws(SyntaxError) {
        depth += 1
        if depth > Self.maxDepth { throw error(JSONGrammar.depthMessage) }
    }

    /// Past the opening bracket and any whitespace; true when the closing bracket follows at once (read too).
    private mutating func open(_ closing: UInt8) -> Bool {
        index += 1
        skipWhitespace()
        if index < bytes.count && bytes[index] == closing { index += 1; return true }
        return false
    }

    /// After an item: false past a ',' and the whitespace after it (another item follows), true
    /// past the closing bracket.
    private mutating func close(_ closing: UInt8) throws(SyntaxError) -> Bool {
        let bracket = "'\(Character(Unicode.Scalar(closing)))'"
        skipWhitespace()
        guard index < bytes.count else { throw error("unexpected end of file; expected ',' or \(bracket)") }
        if bytes[index] == closing { index += 1; return true }
        guard bytes[index] == UInt8(ascii: ",") else { throw error("unexpected \(describeCurrent()); expected ',' or \(bracket) (is a comma missing?)") }
        index += 1
        skipWhitespace()
        if index < bytes.count && bytes[index] == closing { throw error("trailing comma before \(bracket); remove the last ','") }
        return false
    }

    private mutating func parseObject() throws(SyntaxError) -> JSONNode.Kind {
        var members: [JSONMember] = []
        if open(UInt8(ascii: "}")) { return .object(members) }
        repeat {
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw error("unexpected \(describeCurrent()); expected a key in double quotes")
            }
            let keyPosition = position()
            let key = try parseString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                throw error("unexpected \(describeCurrent()); expected ':' after key \"\(key)\"")
            }
            index += 1
            skipWhitespace()
            members.append(JSONMember(key: key, keyPosition: keyPosition, value: try parseValue()))
        } while try !close(UInt8(ascii: "}"))
        return .object(members)
    }

    private mutating func parseArray() throws(SyntaxError) -> JSONNode.Kind {
        var items: [JSONNode] = []
        if open(UInt8(ascii: "]")) { return .array(items) }
        repeat {
            items.append(try parseValue())
        } while try !close(UInt8(ascii: "]"))
        return .array(items)
    }

    private mutating func parseString() throws(SyntaxError) -> String {
        index += 1  // opening quote
        var scalars = String.UnicodeScalarView()
        var runStart = index
        var high: UInt8 = 0  // the bits of the run's bytes: below 0x80 means ASCII, valid as it stands
        func flush(_ end: Int, into scalars: inout String.UnicodeScalarView) throws(SyntaxError) {
            guard end > runStart else { return }
            do {
                scalars.append(contentsOf: try JSONGrammar.utf8String(bytes, runStart, end, ascii: high < 0x80).unicodeScalars)
            } catch {
                throw self.error(error)
            }
            high = 0
        }
        while true {
            guard index < bytes.count else { throw error("unterminated string; add the closing '\"'") }
            let b = bytes[index]
            if b == UInt8(ascii: "\"") {
                try flush(index, into: &scalars)
                index += 1
                return String(scalars)
            }
            if b < 0x20 {
                throw error(b == 0x0A ? "line break inside a string; write it as \\n" : "control character inside a string; escape it")
            }
            if b == UInt8(ascii: "\\") {
                try flush(index, into: &scalars)
                index += 1
                guard index < bytes.count else { throw error("unterminated string; add the closing '\"'") }
                do {
                    let (scalar, end) = try JSONGrammar.escape(in: bytes, at: index)
                    scalars.append(scalar)
                    index = end
                } catch {
                    throw self.error(error)
                }
                runStart = index
                continue
            }
            high |= b
            index += 1
        }
    }

    private mutating func parseNumber() throws(SyntaxError) -> Double {
        do {
            let (value, end) = try JSONGrammar.number(in: bytes, from: index)
            index = end
            return value
        } catch {
            throw self.error(error)
        }
    }
}
