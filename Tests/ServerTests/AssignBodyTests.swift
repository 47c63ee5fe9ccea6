import Assignment
import ExperimentDefinitions
import Testing
@testable import Server

/// `AssignBody.direct` (the one-pass reader) against the general path (`JSONBody` and its
/// checks): whenever the direct reader answers, the general path must accept the same body with
/// the same values; whatever it declines, the general path decides.
@Suite struct AssignBodyTests {
    static let usual = #"{"user_id":"bench-1-7","attributes":{"platform":"ios","country":"US","app_version":"2.3.0","new_user":true},"variables":{"userName":"Ana"},"signals":{"companion":"dog"}}"#

    /// Bodies the direct reader must take itself (the shapes servers send).
    static let common = [
        usual,
        #"{"user_id":"u"}"#,
        " \n{ \"user_id\" : \"u\" , \"attributes\" : { } }\t",
        #"{"signals":{"n":1.5e3,"l":[1,{"a":null}]},"user_id":"u-\"quoted\"\u00e9","on_device_model":false}"#,
        #"{"user_id":"Zoë 😀","variables":{"userName":"José"},"experiments":["a","b"],"on_device_model":true}"#,
        #"{"user_id":"u","attributes":null,"variables":null,"signals":null,"experiments":null,"on_device_model":null}"#,
        #"{"user_id":"u","attributes":{"tags":["a","b"],"plan":{"tier":2},"country":"US","country":"GB"}}"#,
    ]

    /// Bodies the general path refuses, each for a reason the direct reader must not hide.
    static let refused = [
        "", "[]", "{}", #"{"user_id":""}"#, #"{"user_id":null}"#, #"{"user_id":7}"#,
        #"{"user_id":"u","user_id":"v"}"#, #"{"user_id":"u","extra":1}"#, #"{"user_id":"u","attributes":[]}"#,
        #"{"user_id":"u","variables":{"a":1}}"#, #"{"user_id":"u","signals":"dog"}"#,
        #"{"user_id":"u","experiments":[1]}"#, #"{"user_id":"u","on_device_model":"yes"}"#,
        #"{"user_id":"u"} x"#, #"{"user_id":"u",}"#, #"{"user_id":"u" "attributes":{}}"#, #"{"user_id":"u\x"}"#,
        #"{"user_id":"u","attributes":{"a":nul}}"#, #"{"user_id":"u","on_device_model":tru}"#,
        #"{"user_id":"u","attributes":{"platform":3}}"#, #"{"user_id":"u","attributes":{"new_user":"yes"}}"#,
        "{\"user_id\":\"u\",\"signals\":" + String(repeating: "[", count: 80) + String(repeating: "]", count: 80) + "}",
    ]

    enum Outcome: Equatable {
        case body(AssignBody)
        case refused(String)
    }

    func general(_ bytes: [UInt8]) -> Outcome {
        do { return .body(try AssignBody(general: JSONBody(bytes))) } catch { return .refused(error.code) }
    }

    /// The direct reader's answer, checked against the general path's.
    func check(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) -> AssignBody? {
        guard let direct = AssignBody.direct(bytes) else { return nil }
        #expect(general(bytes) == .body(direct), "\(String(decoding: bytes, as: UTF8.self))", sourceLocation: sourceLocation)
        return direct
    }

    @Test func commonBodiesAreReadDirectlyWithTheSameValues() throws {
        for text in Self.common {
            #expect(check(Array(text.utf8)) != nil, "declined: \(text)")
        }
        let usual = try #require(AssignBody.direct(Array(Self.usual.utf8)))
        #expect(usual.userID == "bench-1-7")
        #expect(usual.attributes["country"] == .string("US"))
        #expect(usual.attributes["new_user"] == .bool(true))
        #expect(JSONValue.object(usual.variables) == .object([("userName", .string("Ana"))]))
        #expect(usual.onDeviceModel)
    }

    @Test func refusedBodiesAreLeftToTheGeneralPath() throws {
        for text in Self.refused {
            #expect(AssignBody.direct(Array(text.utf8)) == nil, "answered: \(text)")
            guard case .refused = general(Array(text.utf8)) else { Issue.record("accepted: \(text)"); continue }
        }
        // Through the public entry point the general path's error reaches the client.
        let error = #expect(throws: APIError.self) { _ = try AssignBody(Array(#"{"user_id":"u","extra":1}"#.utf8)) }
        #expect(error?.code == "unknown_field" && error?.field == "extra")
    }

    /// A user id is at most 256 bytes of UTF-8; assign answers 400 naming `user_id`.
    @Test func userIDsOver256BytesAreRefused() throws {
        let longest = String(repeating: "é", count: 128)   // 256 bytes
        #expect(check(Array(#"{"user_id":"\#(longest)"}"#.utf8))?.userID == UserID(longest))
        let over = #"{"user_id":"\#(longest)x"}"#
        #expect(AssignBody.direct(Array(over.utf8)) == nil)
        let error = #expect(throws: APIError.self) { _ = try AssignBody(Array(over.utf8)) }
        #expect(error?.kind == .badRequest && error?.field == "user_id", "\(String(describing: error))")
        #expect(error?.message.contains("256 bytes") == true)
    }

    /// Random edits of good bodies: a deleted, inserted or replaced byte, from bytes that matter to JSON.
    @Test func randomEditsNeverMakeThePathsDisagree() {
        var rng = SystemRandomNumberGenerator()
        let alphabet = Array(#"{}[]":,\ ntrufe0123456789.-+Eu_"#.utf8) + [0x00, 0x1F, 0x7F, 0xC3, 0xA9, 0xFF]
        var answered = 0, edits = 0
        for text in Self.common {
            let base = Array(text.utf8)
            for _ in 0..<3000 {
                var bytes = base
                for _ in 0...Int.random(in: 0...2, using: &rng) {
                    let at = Int.random(in: 0..<bytes.count, using: &rng)
                    switch Int.random(in: 0..<3, using: &rng) {
                    case 0: bytes.remove(at: at)
                    case 1: bytes.insert(alphabet.randomElement(using: &rng)!, at: at)
                    default: bytes[at] = alphabet.randomElement(using: &rng)!
                    }
                    if bytes.isEmpty { break }
                }
                edits += 1
                if check(bytes) != nil { answered += 1 }
            }
        }
        // Many edits land in string contents and stay valid: the direct reader must still answer those.
        #expect(answered > edits / 20, "direct answered \(answered) of \(edits)")
    }

    @Test func attributesReadTheLastOfARepeatedKey() {
        var attributes = Attributes([("country", .string("US")), ("plan", .string("pro")), ("country", .string("GB"))])
        #expect(attributes["country"] == .string("GB"))
        #expect(attributes["missing"] == nil)
        attributes["country"] = .string("FR")
        #expect(attributes.members.count == 2)
        #expect(attributes == ["plan": .string("pro"), "country": .string("FR")])
        attributes["plan"] = nil
        #expect(attributes.dictionary == ["country": .string("FR")])
    }
}
