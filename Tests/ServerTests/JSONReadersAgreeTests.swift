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
        (JSONDocuments.nested(JSONGrammar.maxDepth), true),
        (JSONDocuments.nested(JSONGrammar.maxDepth + 1), false),
        (JSONDocuments.nested(256), false),
    ] as [([UInt8], Bool)])
    func theRulesRFC8259LeavesOpen(_ bytes: [UInt8], _ accepted: Bool) {
        expectAgreement(bytes)
        #expect((reader(bytes) != .refused) == accepted, "\(bytes)")
    }

    /// Random documents, written with random spacing and escapes, each then edited at random.
    @Test func generatedAndEditedDocuments() {
        var rng = SeededGenerator(seed: 19)
        for _ in 0..<3000 {
            let document = JSONDocuments.document(&rng)
            expectAgreement(document)
            #expect(reader(document) != .refused, "\(String(decoding: document, as: UTF8.self))")
            expectAgreement(JSONDocuments.edited(document, &rng))
        }
    }
}
