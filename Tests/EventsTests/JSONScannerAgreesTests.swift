import ExperimentDefinitions
import Testing
import TestSupport
@testable import Events

/// The NDJSON scanner accepts exactly the documents `JSONReader` accepts (both follow
/// `JSONGrammar`), and decodes the strings it is asked for to the same text. One difference is
/// by design: a number beyond a Double is refused by the event field that reads it, naming the
/// field (`EventParserTests`), not by the scanner, so documents JSONReader refuses for that are
/// not compared.
@Suite struct JSONScannerAgreesTests {
    enum Outcome: Equatable {
        /// Accepted; for an object, its keys and string values as decoded.
        case accepted([String])
        case refused
        /// JSONReader's refusal of a number beyond a Double.
        case beyondDouble
    }

    func scanner(_ bytes: [UInt8]) -> Outcome {
        bytes.withUnsafeBufferPointer { buffer in
            var scanner = JSONScanner(buffer)
            do {
                scanner.skipWhitespace()
                var scanned: [JSONScanner.Value] = []
                if scanner.i < buffer.count, buffer[scanner.i] == UInt8(ascii: "{") {
                    try scanner.scanObject { (key, value) throws(JSONScanner.SyntaxError) in
                        scanned.append(key)
                        if case .string = value { scanned.append(value) }
                    }
                } else {
                    let value = try scanner.scanValue(depth: 0)
                    if case .string = value { scanned.append(value) }
                }
                scanner.skipWhitespace()
                return scanner.atEnd ? .accepted(scanned.map { scanner.decode($0) }) : .refused
            } catch {
                return .refused
            }
        }
    }

    func reader(_ bytes: [UInt8]) -> Outcome {
        let node: JSONNode
        do { node = try JSONReader.parse(bytes) } catch { return error.message.contains("out of range") ? .beyondDouble : .refused }
        switch node.value {
        case .string(let s): return .accepted([s])
        case .object(let members):
            return .accepted(members.flatMap { key, value in
                if case .string(let s) = value { [key, s] } else { [key] }
            })
        default: return .accepted([])
        }
    }

    func expectAgreement(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
        let a = reader(bytes), b = scanner(bytes)
        if a == .beyondDouble { return }
        #expect(a == b, "JSONReader \(a) but JSONScanner \(b) for \(String(decoding: bytes, as: UTF8.self).debugDescription)",
                sourceLocation: sourceLocation)
    }

    @Test(arguments: [
        (Array(#"{"user_id": "\ud800"}"#.utf8), false),       // a lone high surrogate (was U+FFFD)
        (Array(#"{"user_id": "\udc00"}"#.utf8), false),       // a lone low surrogate (was U+FFFD)
        (Array(#"{"user_id": "\ud83d\udc26"}"#.utf8), true),  // a pair
        (Array(#"{"revenue": 1e999}"#.utf8), true),           // beyond Double: the revenue field refuses it
        (Array(#"{"revenue": 01}"#.utf8), false),
        (JSONDocuments.nested(JSONGrammar.maxDepth), true),
        (JSONDocuments.nested(JSONGrammar.maxDepth + 1), false),
    ] as [([UInt8], Bool)])
    func theRulesRFC8259LeavesOpen(_ bytes: [UInt8], _ accepted: Bool) {
        expectAgreement(bytes)
        #expect((scanner(bytes) != .refused) == accepted)
    }

    @Test func generatedAndEditedDocuments() {
        var rng = SeededGenerator(seed: 20)
        for _ in 0..<3000 {
            let document = JSONDocuments.document(&rng)
            expectAgreement(document)
            expectAgreement(JSONDocuments.edited(document, &rng))
        }
    }
}
