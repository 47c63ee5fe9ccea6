import ExperimentDefinitions
import Server
import Testing
import TestSupport

/// `JSONReader` (experiment files, with positions) and `BodyParser` (request bodies) follow the
/// same `JSONGrammar`: each document is accepted by both with the same value, or refused by both.
@Suite struct JSONReadersAgreeTests {
    enum Outcome: Equatable {
        case value(JSONValue)
        case refused
    }

    func reader(_ bytes: [UInt8]) -> Outcome {
        (try? JSONReader.parse(bytes)).map { .value($0.value) } ?? .refused
    }

    func body(_ bytes: [UInt8]) -> Outcome {
        (try? BodyParser.parse(bytes)).map { .value($0) } ?? .refused
    }

    func expectAgreement(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
        let a = reader(bytes), b = body(bytes)
        #expect(a == b, "JSONReader \(a) but BodyParser \(b) for \(String(decoding: bytes, as: UTF8.self).debugDescription) \(bytes)",
                sourceLocation: sourceLocation)
    }

    static func nested(_ levels: Int) -> [UInt8] { Array((String(repeating: "[", count: levels) + String(repeating: "]", count: levels)).utf8) }

    /// Where RFC 8259 leaves room, and where the readers used to differ.
    @Test(arguments: [
        (Array(#""\ud800""#.utf8), false),               // a lone high surrogate
        (Array(#""\udc00""#.utf8), false),               // a lone low surrogate
        (Array(#""\ud800\u0041""#.utf8), false),         // a high surrogate followed by no low one
        (Array(#""\ud83d\udc26""#.utf8), true),          // a pair
        ([0x22, 0xFF, 0x22], false),                      // raw bytes that are not UTF-8
        ([0x22, 0xED, 0xA0, 0x80, 0x22], false),          // a surrogate written in UTF-8
        ([0x22, 0xC3, 0xA9, 0x22], true),                 // é
        (Array("[1e999]".utf8), false),                   // beyond Double
        (Array("[1e-999]".utf8), true),                   // rounds to 0
        (Array("[01]".utf8), false),
        (nested(JSONGrammar.maxDepth), true),
        (nested(JSONGrammar.maxDepth + 1), false),
        (nested(256), false),
    ] as [([UInt8], Bool)])
    func theRulesRFC8259LeavesOpen(_ bytes: [UInt8], _ accepted: Bool) {
        expectAgreement(bytes)
        #expect((reader(bytes) != .refused) == accepted, "\(bytes)")
    }

    /// Random documents, written with random spacing and escapes, each then edited at random.
    @Test func generatedAndEditedDocuments() {
        var rng = SeededGenerator(seed: 19)
        let noise: [UInt8] = Array(#""\u{}[],:-.eE0189dDaAfF \n"#.utf8) + [0xFF, 0xC3, 0xA9, 0xED, 0xA0, 0xF0, 0x9F, 0x90, 0xA6, 0x00, 0x7F]
        for _ in 0..<3000 {
            let document = Array(write(randomValue(depth: 0, &rng), &rng).utf8)
            expectAgreement(document)
            #expect(reader(document) != .refused, "\(String(decoding: document, as: UTF8.self))")
            var edited = document
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
                let at = Int.random(in: 0...edited.count, using: &rng)
                switch Int.random(in: 0..<3, using: &rng) {
                case 0 where at < edited.count: edited.remove(at: at)
                case 1: edited.insert(noise.randomElement(using: &rng)!, at: at)
                default: if at < edited.count { edited[at] = noise.randomElement(using: &rng)! }
                }
            }
            expectAgreement(edited)
        }
    }

    func randomValue(depth: Int, _ rng: inout SeededGenerator) -> JSONValue {
        switch Int.random(in: 0..<(depth > 4 ? 4 : 7), using: &rng) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &rng))
        case 2: return .number(randomNumber(&rng))
        case 3: return .string(randomString(&rng))
        case 4, 5: return .object((0..<Int.random(in: 0...4, using: &rng)).map { _ in (randomString(&rng), randomValue(depth: depth + 1, &rng)) })
        default: return .array((0..<Int.random(in: 0...4, using: &rng)).map { _ in randomValue(depth: depth + 1, &rng) })
        }
    }

    func randomNumber(_ rng: inout SeededGenerator) -> Double {
        switch Int.random(in: 0..<4, using: &rng) {
        case 0: Double(Int.random(in: -1000...1000, using: &rng))
        case 1: Double.random(in: -1...1, using: &rng)
        case 2: Double.random(in: 1...1e300, using: &rng)
        default: 0
        }
    }

    func randomString(_ rng: inout SeededGenerator) -> String {
        let pieces: [String] = ["a", "id", "é", "🐦", "\"", "\\", "/", "\n", "\t", "\u{08}", "\u{1F}", " ", "user_42", "中"]
        return (0..<Int.random(in: 0...4, using: &rng)).map { _ in pieces.randomElement(using: &rng)! }.joined()
    }

    /// JSON text for `value`, with random whitespace and, for each scalar, a random choice of a
    /// literal or a `\u` escape (a surrogate pair above U+FFFF).
    func write(_ value: JSONValue, _ rng: inout SeededGenerator) -> String {
        let space = [" ", "", "\n", "\t", "\r\n"].randomElement(using: &rng)!
        switch value {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .number(let d): return d == d.rounded() && abs(d) < 1e15 ? String(Int(d)) : "\(d)"
        case .string(let s): return quote(s, &rng)
        case .array(let items): return "[" + space + items.map { write($0, &rng) }.joined(separator: "," + space) + "]"
        case .object(let members):
            return "{" + space + members.map { quote($0.0, &rng) + space + ":" + write($0.1, &rng) }.joined(separator: "," + space) + space + "}"
        }
    }

    func quote(_ s: String, _ rng: inout SeededGenerator) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            let escape = scalar.value < 0x20 || scalar == "\"" || scalar == "\\" || Bool.random(using: &rng)
            if !escape { out.unicodeScalars.append(scalar); continue }
            for unit in String(scalar).utf16 { out += "\\u" + String(repeating: "0", count: 4 - String(unit, radix: 16).count) + String(unit, radix: 16) }
        }
        return out + "\""
    }
}
