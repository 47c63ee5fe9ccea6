import Testing
import Events

private let exposure = #"{"event_id":"e1","type":"exposure","user_id":"u1","ts":"2026-12-01T10:00:00Z","experiment":"exp","variant":"a""#

private func parse(_ extra: String) -> Result<Event, EventRejection>? {
    EventParser().parse(line: exposure + extra + "}")
}

/// An exposure may carry `placement` and `attributes`.
@Test func anExposureCarriesItsPlacementAndAttributes() throws {
    let event = try #require(try parse(#","placement":"onboarding_end","attributes":{"platform":"ios","country":"GB","new_user":true,"sessions":12,"score":0.5,"app_version":"2.1.0","nested\u00e9":"\u00e9"}"#)?.get())
    #expect(event.placement == "onboarding_end")
    #expect(event.attributes["platform"] == .string("ios"))
    #expect(event.attributes["new_user"] == .bool(true))
    #expect(event.attributes["sessions"] == .number(12))
    #expect(event.attributes["missing"] == nil)
    #expect(event.attributes["nestedé"] == .string("é"))
    #expect(event.attributes.pairs.map(\.key) == ["app_version", "country", "nestedé", "new_user", "score", "platform", "sessions"].sorted {
        $0.utf8.lexicographicallyPrecedes($1.utf8) })
    // Labels name segments: whole numbers without a fraction.
    #expect(event.attributes["sessions"]?.label == "12" && event.attributes["score"]?.label == "0.5")
    #expect(event.attributes["new_user"]?.label == "true")
    // The order of the keys does not change the stored bytes.
    let reordered = try #require(try parse(#","attributes":{"sessions":12,"score":0.5,"platform":"ios","new_user":true,"country":"GB","app_version":"2.1.0","nested\u00e9":"é"}"#)?.get())
    #expect(reordered.attributes == event.attributes)
    #expect(ExposureAttributes(encoded: event.attributes.encoded) == event.attributes)
}

@Test func noAttributesAndNullsAreEmpty() throws {
    #expect(try #require(try parse("")?.get()).attributes.isEmpty)
    let nulls = try #require(try parse(#","placement":null,"attributes":null"#)?.get())
    #expect(nulls.attributes.isEmpty && nulls.placement == nil)
    #expect(try #require(try parse(#","attributes":{}"#)?.get()).attributes.isEmpty)
}

struct BadAttributes: Sendable, CustomTestStringConvertible {
    var extra: String
    var field: String
    var reasonContains: String
    var testDescription: String { "\(field): \(extra)" }
}

@Test(arguments: [
    BadAttributes(extra: #","attributes":"ios""#, field: "attributes", reasonContains: "must be an object, found a string"),
    BadAttributes(extra: #","attributes":[1]"#, field: "attributes", reasonContains: "must be an object, found an array"),
    BadAttributes(extra: #","attributes":{"platform":null}"#, field: "attributes.platform", reasonContains: "string, number or boolean, found null"),
    BadAttributes(extra: #","attributes":{"tags":["a"]}"#, field: "attributes.tags", reasonContains: "found an array"),
    BadAttributes(extra: #","attributes":{"o":{"a":1}}"#, field: "attributes.o", reasonContains: "found an object"),
    BadAttributes(extra: #","attributes":{"a":1,"a":2}"#, field: "attributes.a", reasonContains: "appears twice"),
    BadAttributes(extra: #","attributes":{"":"x"}"#, field: "attributes.", reasonContains: "non-empty"),
    BadAttributes(extra: #","attributes":{"a":"x\u0000"}"#, field: "attributes.a", reasonContains: "NUL"),
    BadAttributes(extra: #","attributes":{"a":1e999}"#, field: "attributes.a", reasonContains: "finite"),
    BadAttributes(extra: #","attributes":{"country":"\#(String(repeating: "x", count: 257))"}"#, field: "attributes.country", reasonContains: "longer than 256 bytes"),
    BadAttributes(extra: #","attributes":{"\#(String(repeating: "k", count: 257))":"x"}"#, field: "attributes.kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk…", reasonContains: "key is longer than 256"),
    BadAttributes(extra: #","attributes":{\#((0..<33).map { #""k\#($0)":\#($0)"# }.joined(separator: ","))}"#, field: "attributes", reasonContains: "at most 32 keys"),
    BadAttributes(extra: #","placement":7"#, field: "placement", reasonContains: "must be a string"),
    BadAttributes(extra: #","placement":"a\u0000""#, field: "placement", reasonContains: "NUL"),
])
func badAttributesAreRejectedNamingTheField(_ bad: BadAttributes) {
    guard case .failure(let r)? = parse(bad.extra) else { Issue.record("accepted: \(bad.extra)"); return }
    #expect(r.field == bad.field)
    #expect(r.reason.contains(bad.reasonContains), "\(r.reason)")
}

@Test func theLimitsThemselvesAreAccepted() throws {
    let keys = (0..<32).map { #""k\#($0)":\#($0)"# }.joined(separator: ",")
    let event = try #require(try parse(#","attributes":{\#(keys)}"#)?.get())
    #expect(event.attributes.pairs.count == 32)
    let long = String(repeating: "é", count: 128)
    let longest = try #require(try parse(#","attributes":{"\#(long)":"\#(long)"}"#)?.get())
    #expect(longest.attributes[long] == .string(long))
}

/// A JSON syntax error inside `attributes` is still a syntax error of the line.
@Test func aSyntaxErrorInsideAttributesIsAJSONError() {
    guard case .failure(let r)? = parse(#","attributes":{"a":}"#) else { Issue.record("accepted"); return }
    #expect(r.field == "json")
}
