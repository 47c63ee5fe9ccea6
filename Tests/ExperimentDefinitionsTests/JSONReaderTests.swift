import Testing
@testable import ExperimentDefinitions

@Suite struct JSONReaderTests {
    @Test func valuesKeepTheirPositions() throws {
        let text = "{\n  \"a\": [1, true],\n  \"é\": \"x\", \"b\": null\n}"
        let root = try JSONReader.parse(text)
        guard case .object(let members) = root.kind else { Issue.record("not an object"); return }
        #expect(root.position == SourcePosition(line: 1, column: 1))
        #expect(members[0].keyPosition == SourcePosition(line: 2, column: 3))
        #expect(members[0].value.position == SourcePosition(line: 2, column: 8))
        guard case .array(let items) = members[0].value.kind else { Issue.record("not an array"); return }
        #expect(items[1].position == SourcePosition(line: 2, column: 12))
        // Columns count scalars, not bytes: "é" is two bytes but one column.
        #expect(members[1].value.position == SourcePosition(line: 3, column: 8))
        #expect(members[2].keyPosition == SourcePosition(line: 3, column: 13))
    }

    @Test func decodesEscapesAndSurrogatePairs() throws {
        let root = try JSONReader.parse(#"["a\"b\\c\/\n\t\u00e9\ud83d\udc26"]"#)
        #expect(root.value == .array([.string("a\"b\\c/\n\té🐦")]))
    }

    @Test func numbersFollowTheGrammar() throws {
        #expect(try JSONReader.parse("-0.5e2").value == .number(-50))
        #expect(try JSONReader.parse("[0, 12.25, 1E3]").value == .array([.number(0), .number(12.25), .number(1000)]))
    }

    @Test(arguments: [
        ("{\"a\": 1,}", 1, 9, "trailing comma"),
        ("[1, 2,]", 1, 7, "trailing comma"),
        ("{\"a\": 1 \"b\": 2}", 1, 9, "comma missing"),
        ("{\n  \"a\": \"x\n\"}", 2, 10, "line break inside a string"),
        ("{'a': 1}", 1, 2, "double quotes"),
        ("[01]", 1, 3, "leading zeros"),
        ("[1] 2", 1, 5, "after the end"),
        ("{\"a\": tru}", 1, 7, "expected a value"),
        ("\"\\ud800\"", 1, 8, "lone surrogate"),
        ("{\"a\": ", 1, 7, "end of file"),
        ("\"abc", 1, 5, "unterminated string"),
        ("[1e999]", 1, 2, "out of range"),
    ])
    func syntaxErrorsPointAtTheProblem(text: String, line: Int, column: Int, words: String) {
        do {
            _ = try JSONReader.parse(text)
            Issue.record("expected a syntax error for \(text)")
        } catch {
            #expect(error.position == SourcePosition(line: line, column: column), "\(text): \(error.message)")
            #expect(error.message.contains(words), "\(error.message)")
        }
    }

    @Test func deepNestingIsRefusedNotCrashing() {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(throws: JSONReader.SyntaxError.self) { try JSONReader.parse(deep) }
        let deepest = String(repeating: "[", count: JSONGrammar.maxDepth) + String(repeating: "]", count: JSONGrammar.maxDepth)
        #expect((try? JSONReader.parse(deepest)) != nil)
        // One level more is refused, as BodyParser and the NDJSON scanner refuse it.
        let tooDeep = "[" + deepest + "]"
        #expect(throws: JSONReader.SyntaxError(message: "nesting deeper than 64 levels", position: SourcePosition(line: 1, column: 65))) {
            try JSONReader.parse(tooDeep)
        }
    }

    @Test func stringsMustBeValidUTF8() {
        // Before, bytes that are not UTF-8 became U+FFFD here while BodyParser refused them.
        for bytes: [UInt8] in [[0x22, 0xFF, 0x22], [0x22, 0x61, 0xC3, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22]] {
            #expect(throws: JSONReader.SyntaxError(message: "a string is not valid UTF-8", position: SourcePosition(line: 1, column: 2))) {
                try JSONReader.parse(bytes)
            }
        }
    }

    @Test func aLoneLowSurrogateIsRefused() {
        #expect(throws: JSONReader.SyntaxError.self) { try JSONReader.parse(#""\udc00""#) }
    }

    @Test func positionsOnALongLineCountScalarsOnce() throws {
        // One line of 5,000 members, with two-byte and four-byte scalars before each value.
        let members = (0..<5_000).map { "\"é\($0)🐦\": \($0)" }
        let root = try JSONReader.parse("{" + members.joined(separator: ", ") + "}")
        guard case .object(let parsed) = root.kind else { Issue.record("not an object"); return }
        var column = 2
        for (n, member) in parsed.enumerated() {
            #expect(member.keyPosition == SourcePosition(line: 1, column: column))
            let keyLength = "\"é\(n)🐦\"".unicodeScalars.count
            #expect(member.value.position == SourcePosition(line: 1, column: column + keyLength + 2))
            column += members[n].unicodeScalars.count + 2
        }
        // And after the line, columns start again.
        let two = try JSONReader.parse("[\"é\",\n 1]")
        guard case .array(let items) = two.kind else { Issue.record("not an array"); return }
        #expect(items[1].position == SourcePosition(line: 2, column: 2))
    }

    @Test func writerRoundTripsThroughTheReader() throws {
        let value: JSONValue = .object([("s", .string("quote \" slash \\ nl \n ctl \u{01} emoji 🐦")), ("n", .number(0.1)), ("i", .number(-3)),
                                        ("a", .array([.bool(true), .null]))])
        #expect(try JSONReader.parse(value.serialized()).value == value)
        #expect(JSONValue.number(.nan).serialized() == "null")
    }
}
