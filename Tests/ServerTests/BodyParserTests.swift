import ExperimentDefinitions
import Testing
@testable import Server

@Suite struct BodyParserTests {
    func parse(_ s: String) throws -> JSONValue { try BodyParser.parse(Array(s.utf8)) }

    @Test func parsesValues() throws {
        #expect(try parse(#"{"a":[1,-2.5e2,true,false,null],"b":"x\"\u00e9\ud83d\ude00\n"}"#)
                == .object([("a", .array([.number(1), .number(-250), .bool(true), .bool(false), .null])), ("b", .string("x\"é😀\n"))]))
        #expect(try parse("  \"plain\"  ") == .string("plain"))
    }

    @Test(arguments: ["", "{", "{\"a\":}", "[1,]", "01", "1.", "\"\\x\"", "\"\u{01}\"", "{\"a\":1}x", "tru", "\"\\ud800\"", "[\"a\" \"b\"]"])
    func rejectsInvalidJSON(text: String) {
        #expect(throws: BodyParser.SyntaxError.self) { try parse(text) }
    }

    @Test func rejectsInvalidUTF8() {
        #expect(throws: BodyParser.SyntaxError.self) { try BodyParser.parse([0x22, 0xFF, 0x22]) }
    }

    @Test func limitsNesting() throws {
        _ = try parse(String(repeating: "[", count: 64) + String(repeating: "]", count: 64))
        #expect(throws: BodyParser.SyntaxError.self) { try parse(String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)) }
    }

    @Test func longSingleLineBodiesParseQuickly() throws {
        let body = "[" + Array(repeating: #"{"k":"v","n":1}"#, count: 100_000).joined(separator: ",") + "]"
        let start = ContinuousClock.now
        guard case .array(let items) = try parse(body) else { Issue.record("not an array"); return }
        #expect(items.count == 100_000)
        #expect(ContinuousClock.now - start < .seconds(5))
    }

    @Test func jsonBodyChecksFields() throws {
        let body = try JSONBody(Array(#"{"s":"x","n":1,"o":{"k":true},"l":["a"]}"#.utf8))
        #expect(try body.string("s") == "x")
        #expect(throws: APIError.self) { try body.string("n") }
        #expect(throws: APIError.self) { try body.string("missing") }
        #expect(JSONBody.dictionary(try body.members("o"))["k"] == .bool(true))
        #expect(try body.optionalStringArray("l") == ["a"])
        #expect(throws: APIError.self) { try body.only(["s"]) }
        #expect(throws: APIError.self) { try JSONBody(Array(#"{"a":1,"a":2}"#.utf8)) }
        // Small objects compare pairs, large ones use a set: both find the first repeat.
        let many = (0..<40).map { ("k\($0)", JSONValue.null) }
        #expect(JSONBody.firstDuplicate(many) == nil)
        #expect(JSONBody.firstDuplicate(many + [("k3", .null)]) == "k3")
        #expect(JSONBody.firstDuplicate([("a", .null), ("b", .null), ("b", .null)]) == "b")
        #expect(throws: APIError.self) { try JSONBody(Array("[1]".utf8)) }
        #expect(throws: APIError.self) { try JSONBody([]) }
    }
}

@Suite struct JSONWriterTests {
    @Test(arguments: [
        #"{"a":[1,-2.5,1e+300,true,false,null],"b":"x\"\\\n\r\t\u0001é😀\u2028 \u2029","":{}}"#,
        #"[0,-0,123456789012345,0.1,-1e-7,"",[]]"#,
    ])
    func matchesSerialized(text: String) throws {
        let value = try BodyParser.parse(Array(text.utf8))
        #expect(String(decoding: JSONWriter.bytes(value), as: UTF8.self) == value.serialized())
        #expect(try BodyParser.parse(JSONWriter.bytes(value)) == value)
    }

    /// `writeNumber` writes decimals of up to four places from integer digits; the text must be
    /// exactly Swift's shortest form, which `JSONValue.format` uses for everything else.
    @Test func decimalsMatchSwiftsShortestForm() {
        func written(_ n: Double) -> String {
            var out: [UInt8] = []
            JSONWriter.writeNumber(n, to: &out)
            return String(decoding: out, as: UTF8.self)
        }
        var checked = 0
        // Every ten-thousandth up to 20 (buckets), every hundredth up to 1,000, both signs; then large
        // and awkward values.
        var values = (0...200_000).map { Double($0) / 10_000 } + (0...100_000).map { Double($0) / 100 }
        values += [59.99, 9.99, 0.1 + 0.2, 1e-5, 0.00011, 123_456_789.0123, 99_999_999_999.9999, 1e11 + 0.5, 2.5e-4, 1 / 3]
        var generator = SystemRandomNumberGenerator()
        values += (0..<50_000).map { _ in Double(Int64.random(in: 1...999_999_999_999_999, using: &generator)) / 10_000 }
        for n in values + values.map({ -$0 }) {
            if written(n) != JSONValue.format(n) {
                Issue.record("\(n): wrote \(written(n)), Swift writes \(JSONValue.format(n))")
                break
            }
            checked += 1
        }
        #expect(checked == 2 * values.count)
    }

    /// Strings are copied in unescaped runs; random mixes of plain text, escapes and other
    /// characters starting with byte 0xE2 (€, U+2027) must come out as `serialized()` writes them.
    @Test func stringsMatchSerialized() {
        let pieces = ["a", "Ana", "\"", "\\", "\n", "\r", "\t", "\u{01}", "\u{1F}", " ", "é", "😀", "€", "\u{2027}", "\u{2028}", "\u{2029}", "\u{202A}", "/"]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<5_000 {
            let text = (0..<Int.random(in: 0...12, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            var out: [UInt8] = []
            JSONWriter.writeString(text, to: &out)
            #expect(String(decoding: out, as: UTF8.self) == JSONValue.string(text).serialized(), "\(Array(text.unicodeScalars))")
        }
    }

    @Test func nonFiniteNumbersBecomeNull() {
        #expect(JSONWriter.bytes(.array([.number(.nan), .number(.infinity)])) == Array("[null,null]".utf8))
    }
}
