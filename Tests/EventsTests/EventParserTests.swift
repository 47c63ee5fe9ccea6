import Testing
import Events
import ExperimentDefinitions

private let parser = EventParser()

private func parse(_ line: String, with parser: EventParser = parser) -> Result<Event, EventRejection>? {
    parser.parse(line: line)
}

private func rejection(_ line: String, with parser: EventParser = parser) -> EventRejection? {
    if case .failure(let r)? = parse(line, with: parser) { return r }
    return nil
}

@Test(arguments: EventType.allCases)
func parsesEveryEventType(type: EventType) throws {
    let extra: String
    switch type {
    case .exposure: extra = #","experiment":"exp","variant":"a","copy_source":"on_device","copy_text":"Hi","copy_fallback_reason":"r""#
    case .refunded: extra = #","revenue":-9.99,"currency":"USD","product_id":"p""#
    case .purchased, .converted, .renewed: extra = #","revenue":9.99,"currency":"USD","product_id":"p""#
    case .trialStarted, .cancelled: extra = #","product_id":"p""#
    case .identified: extra = #","identity":"acct-1""#
    case .uncancelled, .billingIssue: extra = #","product_id":"p""#
    case .expired: extra = #","product_id":"p","reason":"billing""#
    case .planChanged: extra = #","product_id":"p","previous_product_id":"q""#
    }
    let line = #"{"event_id":"e1","type":"\#(type.name)","user_id":"u1","ts":"2026-12-01T10:00:00Z"\#(extra)}"#
    let event = try #require(try parse(line)?.get())
    #expect(event.id == "e1")
    #expect(event.type == type)
    #expect(event.userID == "u1")
    #expect(event.timestamp == Timestamp(rfc3339: "2026-12-01T10:00:00Z"))
    if type == .exposure {
        #expect(event.experiment == "exp" && event.variant == "a")
        #expect(event.copySource == .onDevice && event.copyText == "Hi" && event.copyFallbackReason == "r")
    } else if type.carriesRevenue {
        #expect(abs(event.revenue ?? 0) == 9.99 && event.currency == "USD" && event.productID == "p")
    } else if type == .identified {
        #expect(event.identity == "acct-1" && event.revenue == nil)
    } else {
        #expect(event.revenue == nil && event.productID == "p")
    }
}

@Test func blankLinesAreSkippedNotRejected() {
    #expect(parse("") == nil)
    #expect(parse("   \t ") == nil)
}

struct BadLine: Sendable, CustomTestStringConvertible {
    var line: String
    var field: String
    var reasonContains: String
    var testDescription: String { "\(field): \(line)" }
}

@Test(arguments: [
    BadLine(line: #"{"event_id":"e1","type":"exposure""#, field: "json", reasonContains: "expected ',' or '}'"),
    BadLine(line: #"not json"#, field: "json", reasonContains: "invalid JSON"),
    BadLine(line: #"[1,2]"#, field: "json", reasonContains: "expected an event object, found an array"),
    BadLine(line: #"{"event_id":"e1"} trailing"#, field: "json", reasonContains: "after the object"),
    BadLine(line: #"{"event_id":"e1","type":"exposure","user_id":"u","ts":"2026-12-01T10:00:00Z","x":NaN}"#, field: "json", reasonContains: "invalid JSON"),
    BadLine(line: #"{"type":"exposure","user_id":"u","ts":"2026-12-01T10:00:00Z"}"#, field: "event_id", reasonContains: "missing"),
    BadLine(line: #"{"event_id":"","type":"renewed","user_id":"u","ts":"2026-12-01T10:00:00Z"}"#, field: "event_id", reasonContains: "non-empty"),
    BadLine(line: #"{"event_id":7,"type":"renewed","user_id":"u","ts":"2026-12-01T10:00:00Z"}"#, field: "event_id", reasonContains: "must be a string, found a number"),
    BadLine(line: #"{"event_id":"e","user_id":"u","ts":"2026-12-01T10:00:00Z"}"#, field: "type", reasonContains: "missing"),
    BadLine(line: #"{"event_id":"e","type":"upgraded","user_id":"u","ts":"2026-12-01T10:00:00Z"}"#, field: "type", reasonContains: "unknown event type 'upgraded'"),
    BadLine(line: #"{"event_id":"e","type":"renewed","ts":"2026-12-01T10:00:00Z"}"#, field: "user_id", reasonContains: "missing"),
    BadLine(line: #"{"event_id":"e","type":"renewed","user_id":"u"}"#, field: "ts", reasonContains: "missing"),
    BadLine(line: #"{"event_id":"e","type":"renewed","user_id":"u","ts":"2026-02-30T10:00:00Z"}"#, field: "ts", reasonContains: "not an RFC 3339 timestamp"),
    BadLine(line: #"{"event_id":"e","type":"renewed","user_id":"u","ts":"2026-12-01 10:00"}"#, field: "ts", reasonContains: "not an RFC 3339 timestamp"),
    BadLine(line: #"{"event_id":"e","type":"renewed","user_id":"u","ts":"2026-12-01T10:00:00"}"#, field: "ts", reasonContains: "not an RFC 3339 timestamp"),
    BadLine(line: #"{"event_id":"e","type":"exposure","user_id":"u","ts":"2026-12-01T10:00:00Z","variant":"a"}"#, field: "experiment", reasonContains: "required for exposure"),
    BadLine(line: #"{"event_id":"e","type":"exposure","user_id":"u","ts":"2026-12-01T10:00:00Z","experiment":"x"}"#, field: "variant", reasonContains: "required for exposure"),
    BadLine(line: #"{"event_id":"e","type":"converted","user_id":"u","ts":"2026-12-01T10:00:00Z","revenue":1e999}"#, field: "revenue", reasonContains: "finite"),
    BadLine(line: #"{"event_id":"e","type":"converted","user_id":"u","ts":"2026-12-01T10:00:00Z","revenue":"9.99"}"#, field: "revenue", reasonContains: "must be a number"),
    BadLine(line: #"{"event_id":"e","type":"exposure","user_id":"u","ts":"2026-12-01T10:00:00Z","experiment":"x","variant":"a","copy_source":"llm"}"#, field: "copy_source", reasonContains: "static, template, on_device, server, fallback"),
    BadLine(line: #"{"event_id":"e","event_id":"f","type":"renewed","user_id":"u","ts":"2026-12-01T10:00:00Z"}"#, field: "event_id", reasonContains: "appears twice"),
    BadLine(line: #"{"event_id":"e","type":"renewed","user_id":"u","ts":""}"#, field: "ts", reasonContains: "non-empty"),
    BadLine(line: #"{"event_id":"e","type":"renewed","user_id":"u","ts":1796083200}"#, field: "ts", reasonContains: "must be a string, found a number"),
    BadLine(line: #"{"event_id":"e","type":"renewed","user_id":"u","ts":"2026-12-01T10:00:00\u005A!"}"#, field: "ts", reasonContains: "'2026-12-01T10:00:00Z!'"),
    BadLine(line: #"{"event_id":"e","type":"renewed","user_id":"u","\u0074s":"x"}"#, field: "ts", reasonContains: "not an RFC 3339 timestamp"),
])
func rejectsBadLineNamingTheField(bad: BadLine) throws {
    let r = try #require(rejection(bad.line))
    #expect(r.field == bad.field)
    #expect(r.reason.contains(bad.reasonContains), "reason was: \(r.reason)")
}

/// Keys and timestamps with escapes take the slow path (decoded first) and mean the same.
@Test func escapedKeysAndTimestampsAreUnderstood() throws {
    let line = #"{"\u0065vent_id":"e","type":"renewed","user_id":"u","t\u0073":"2026-12-01T10:00:00\u005A"}"#
    let event = try #require(EventParser().parse(line: line)).get()
    #expect(event.id == "e")
    #expect(event.timestamp == Timestamp(rfc3339: "2026-12-01T10:00:00Z"))
}

@Test func catalogChecksExposures() throws {
    let strict = EventParser(catalog: KnownVariants(["exp": ["control", "ai"]]))
    let ok = #"{"event_id":"e","type":"exposure","user_id":"u","ts":"2026-12-01T10:00:00Z","experiment":"exp","variant":"ai"}"#
    #expect(try parse(ok, with: strict)?.get().variant == "ai")
    let badVariant = try #require(rejection(ok.replacingOccurrences(of: #""ai""#, with: #""gpt""#), with: strict))
    #expect(badVariant.field == "variant")
    #expect(badVariant.reason.contains("experiment 'exp' has no variant 'gpt'"))
    #expect(badVariant.reason.contains("ai, control"))
    let badExperiment = try #require(rejection(ok.replacingOccurrences(of: #""exp""#, with: #""other""#), with: strict))
    #expect(badExperiment.field == "experiment")
    // Without a catalog the same lines are accepted; purchases never need one.
    #expect(rejection(ok.replacingOccurrences(of: #""ai""#, with: #""gpt""#)) == nil)
    #expect(rejection(#"{"event_id":"e","type":"purchased","user_id":"u","ts":"2026-12-01T10:00:00Z"}"#, with: strict) == nil)
}

@Test func decodesEscapesAndUnicode() throws {
    let line = #"{"event_id":"e\u00e9\"1","type":"renewed","user_id":"u\ud83d\udc26 ü","ts":"2026-12-01T10:00:00Z"}"#
    let event = try #require(try parse(line)?.get())
    #expect(event.id == "eé\"1")
    #expect(event.userID == "u🐦 ü")
}

@Test func nullOptionalFieldsAreAbsent() throws {
    let line = #"{"event_id":"e","type":"converted","user_id":"u","ts":"2026-12-01T10:00:00Z","revenue":null,"experiment":null,"currency":null}"#
    let event = try #require(try parse(line)?.get())
    #expect(event.revenue == nil && event.experiment == nil && event.currency == nil)
}

@Test func rejectsInvalidUTF8() {
    var bytes = Array(#"{"event_id":"e","type":"renewed","user_id":"u"#.utf8)
    bytes += [0xC3, 0x28]
    bytes += Array(#"","ts":"2026-12-01T10:00:00Z"}"#.utf8)
    let result = bytes.withUnsafeBufferPointer { parser.parse(bytes: $0) }
    guard case .failure(let r)? = result else { Issue.record("accepted invalid UTF-8"); return }
    #expect(r.field == "json" && r.reason.contains("UTF-8"))
}

@Test func timestampsFollowRFC3339() {
    let base = Timestamp(rfc3339: "2026-12-01T10:00:00Z")!
    #expect(base.microseconds == 1_796_119_200_000_000)
    #expect(Timestamp(rfc3339: "2026-12-01T11:30:00+01:30") == base)
    #expect(Timestamp(rfc3339: "2026-12-01t10:00:00z") == base)
    #expect(Timestamp(rfc3339: "2026-12-01T10:00:00.123456789Z")!.microseconds == base.microseconds + 123_456)
    #expect(Timestamp(rfc3339: "2024-02-29T00:00:00Z") != nil)
    #expect(Timestamp(rfc3339: "2025-02-29T00:00:00Z") == nil)
    #expect(Timestamp(rfc3339: "1969-12-31T23:59:59Z")!.microseconds == -1_000_000)
    #expect(Timestamp(rfc3339: "2026-12-01T24:00:00Z") == nil)
    #expect(Timestamp(rfc3339: "2026-12-01T10:00:00.Z") == nil)
    #expect(base.rfc3339 == "2026-12-01T10:00:00Z")
    #expect(Timestamp(microseconds: base.microseconds + 250_000).rfc3339 == "2026-12-01T10:00:00.25Z")
    #expect(Timestamp(rfc3339: "2000-03-01T00:00:00Z")!.date.timeIntervalSince1970 == 951_868_800)
}

@Test func parsesArrayAndNDJSONBodies() {
    let ndjson = "{\"event_id\":\"a\",\"type\":\"renewed\",\"user_id\":\"u\",\"ts\":\"2026-12-01T10:00:00Z\"}\n\n{\"bad\":1}\r\n"
    let lines = Array(ndjson.utf8).withUnsafeBufferPointer { parser.parseBody($0) }
    #expect(lines.map(\.position) == [1, 3])
    #expect((try? lines[0].result.get())?.id == "a")
    #expect(lines[1].result == .failure(EventRejection(field: "event_id", reason: "missing", more: [
        EventRejection(field: "type", reason: "missing"), EventRejection(field: "user_id", reason: "missing"),
        EventRejection(field: "ts", reason: "missing"), EventRejection(field: "bad", reason: "is not a key of any event")])))
    let array = #"[{"event_id":"a","type":"renewed","user_id":"u","ts":"2026-12-01T10:00:00Z"}, {"event_id":"b","type":"nope","user_id":"u","ts":"2026-12-01T10:00:00Z"}]"#
    let items = Array(array.utf8).withUnsafeBufferPointer { parser.parseBody($0) }
    #expect(items.map(\.position) == [1, 2])
    if case .failure(let r) = items[1].result { #expect(r.field == "type") } else { Issue.record("accepted unknown type") }
    let broken = Array("[{\"event_id\":\"a\"},".utf8).withUnsafeBufferPointer { parser.parseBody($0) }
    #expect(broken.count == 1 && broken[0].position == 0)
}

@Test(arguments: ["01", "-", "1.", ".5", "1e", "+1", "0x10", "1.5e+"])
func rejectsMalformedNumbers(number: String) throws {
    let r = try #require(rejection(#"{"event_id":"e","type":"renewed","user_id":"u","ts":"2026-12-01T10:00:00Z","revenue":\#(number)}"#))
    #expect(r.field == "json")
}

@Test(arguments: [("0", 0.0), ("-0.5", -0.5), ("1e2", 100.0), ("59.99", 59.99), ("1E-2", 0.01)])
func acceptsJSONNumbers(text: String, value: Double) throws {
    let type = value < 0 ? "refunded" : "renewed"
    let event = try #require(try parse(#"{"event_id":"e","type":"\#(type)","user_id":"u","ts":"2026-12-01T10:00:00Z","revenue":\#(text)}"#)?.get())
    #expect(event.revenue == value)
}

/// PostgreSQL text cannot hold U+0000: a `\u0000` escape in any string field is refused for
/// every store, naming the field; a raw NUL byte is already a JSON syntax error.
@Test(arguments: ["event_id", "type", "user_id", "ts", "experiment", "variant", "currency", "product_id",
                  "copy_source", "copy_text", "copy_fallback_reason"])
func aNulEscapeInAStringFieldIsRefused(field: String) throws {
    var fields = ["event_id": "e1", "type": "exposure", "user_id": "u1", "ts": "2026-12-01T10:00:00Z", "experiment": "exp",
                  "variant": "a", "currency": "USD", "product_id": "p", "copy_source": "on_device", "copy_text": "Hi",
                  "copy_fallback_reason": "r"]
    fields[field]! += #"\u0000"#
    let line = "{" + fields.sorted { $0.key < $1.key }.map { #""\#($0.key)":"\#($0.value)""# }.joined(separator: ",") + "}"
    let r = rejection(line)
    #expect(r?.field == field, "\(String(describing: r))")
    if !["type", "ts", "copy_source"].contains(field) {
        #expect(r?.reason == #"must not contain the NUL character (\u0000)"#)
    }
    // Other escapes still decode.
    let escaped = try parse(#"{"event_id":"e\u0001\n","type":"trial_started","user_id":"u","ts":"2026-12-01T10:00:00Z"}"#)?.get()
    #expect(escaped?.id == "e\u{1}\n")
    #expect(rejection("{\"event_id\":\"e\u{0}\",\"type\":\"trial_started\",\"user_id\":\"u\",\"ts\":\"2026-12-01T10:00:00Z\"}")?.field == "json")
}

@Test func validateRefusesANulInAMappedEvent() {
    let event = Event(id: "e1", type: .purchased, userID: "u1", timestamp: Timestamp(microseconds: 0), productID: "p\u{0}")
    #expect(parser.validate(event) == EventRejection(field: "product_id", reason: #"must not contain the NUL character (\u0000)"#))
    #expect(parser.validate(Event(id: "e1", type: .purchased, userID: "u1", timestamp: Timestamp(microseconds: 0))) == nil)
}

/// Revenue in another currency is converted into the report currency when parsed (so
/// stored), the amount and currency as sent kept; a currency with no rate rejects the line naming `currency`.
@Test func revenueInAnotherCurrencyIsConvertedAndTheOriginalKept() throws {
    let eur = EventParser(currency: CurrencyConverter(currency: "USD", rates: ["EUR": 1.08, "JPY": 0.0067]))
    let line = #"{"event_id":"e","type":"converted","user_id":"u","ts":"2026-12-01T10:00:00Z","revenue":49.99,"currency":"EUR"}"#
    let event = try #require(parse(line, with: eur)).get()
    #expect(event.revenue == 49.99 * 1.08)
    #expect(event.currency == "USD")
    #expect(event.originalRevenue == 49.99)
    #expect(event.originalCurrency == "EUR")
    // Stripe writes codes in small letters; a yen refund converts with its sign.
    let yen = try #require(parse(#"{"event_id":"r","type":"refunded","user_id":"u","ts":"2026-12-01T10:00:00Z","revenue":-7400,"currency":"jpy"}"#, with: eur)).get()
    #expect(yen.revenue == -7400 * 0.0067)
    #expect(yen.originalCurrency == "jpy")
    // The report currency, or none: kept as sent, nothing "original".
    for same in [#""currency":"USD""#, #""currency":null"#] {
        let e = try #require(parse(line.replacingOccurrences(of: #""currency":"EUR""#, with: same), with: eur)).get()
        #expect(e.revenue == 49.99 && e.originalRevenue == nil && e.originalCurrency == nil)
    }
    let noRate = try #require(rejection(line.replacingOccurrences(of: "EUR", with: "SEK"), with: eur))
    #expect(noRate.field == "currency")
    #expect(noRate.reason.contains("no exchange rate from SEK to USD"))
    // A currency beside no amount changes nothing and is not refused.
    #expect(rejection(#"{"event_id":"c","type":"purchased","user_id":"u","ts":"2026-12-01T10:00:00Z","currency":"SEK"}"#, with: eur) == nil)
    // Webhooks' events go through `check`: the same conversion and the same refusal.
    let mapped = Event(id: "w", type: .purchased, userID: "u", timestamp: Timestamp(microseconds: 0), revenue: 10, currency: "GBP")
    #expect(eur.check(mapped).failure?.field == "currency")
    #expect(try eur.check(Event(id: "w", type: .purchased, userID: "u", timestamp: Timestamp(microseconds: 0), revenue: 10, currency: "EUR")).get().revenue == 10 * 1.08)
}

extension Result {
    fileprivate var failure: Failure? { if case .failure(let f) = self { f } else { nil } }
}

/// `user_id` and `event_id` are at most 256 bytes of UTF-8; a longer one rejects the line naming the field.
@Test func idsOver256BytesAreRejectedNamingTheField() throws {
    let longest = String(repeating: "é", count: 128)   // 256 bytes, 128 characters
    func line(event: String, user: String) -> String {
        #"{"event_id":"\#(event)","type":"renewed","user_id":"\#(user)","ts":"2026-12-01T10:00:00Z"}"#
    }
    #expect(try parse(line(event: longest, user: longest))?.get().userID == UserID(longest))
    let user = try #require(rejection(line(event: "e", user: longest + "x")))
    #expect(user.field == "user_id" && user.reason == "is longer than 256 bytes (257)")
    let event = try #require(rejection(line(event: String(repeating: "a", count: 1_000_000), user: "u")))
    #expect(event.field == "event_id" && event.reason == "is longer than 256 bytes (1000000)")
    // Events mapped from webhooks are held to the same limit.
    let mapped = Event(id: "e", type: .renewed, userID: UserID(longest + "x"), timestamp: Timestamp(microseconds: 0))
    #expect(parser.validate(mapped)?.field == "user_id")
}

/// Every bad field of a line, in the order a reader checks it; the first is what a one-problem
/// reader (an error's `field`) names.
@Test func aLineWithSeveralBadFieldsNamesEveryOne() throws {
    let catalog = KnownVariants(["paywall": ["control", "new"]])
    let line = #"{"event_id":"","type":"exposure","user_id":"\#(String(repeating: "u", count: 300))","experiment":"paywall","variant":"old","copy_source":"llm","attributes":{"a":[1],"b":"ok","c":{}},"trial_days":3}"#
    let r = try #require(rejection(line, with: EventParser(catalog: catalog)))
    #expect(r.problems.map(\.field) == ["event_id", "user_id", "attributes.a", "attributes.c", "ts", "copy_source", "variant", "trial_days"])
    #expect(r.field == "event_id" && r.reason == "must be a non-empty string")
    #expect(r.problems.first { $0.field == "user_id" }?.reason == "is longer than 256 bytes (300)")
    #expect(r.problems.first { $0.field == "trial_days" }?.reason == "only trial_started events carry trial_days")
    #expect(r.problems.first { $0.field == "copy_source" }?.reason.hasPrefix("unknown copy source 'llm' (expected one of: static") == true)
    // An unknown type is one problem; the fields that need a type are not judged without one.
    let unknown = try #require(rejection(#"{"event_id":"e","type":"buy","user_id":"u"}"#))
    #expect(unknown.problems.map(\.field) == ["type", "ts"])
    #expect(unknown.reason.hasPrefix("unknown event type 'buy' (expected one of: exposure, "))
    // A good line has no problem, and a line with one problem has no `more`.
    #expect(rejection(#"{"event_id":"e","type":"renewed","user_id":"u","ts":"2026-12-01T10:00:00Z"}"#) == nil)
    #expect(rejection(#"{"event_id":"e","type":"renewed","user_id":"u","ts":"yesterday"}"#)?.more == [])
}

/// Doubtful lines: refused naming the field, never silently changed.
@Suite struct DoubtfulLinesTests {
    let base = #""event_id":"e","user_id":"u","ts":"2026-12-01T10:00:00Z""#
    let clock = parser.receiving(at: Timestamp(rfc3339: "2026-12-01T12:00:00Z")!)

    @Test(arguments: [
        (#""type":"purchased","revenue":-5"#, "revenue"),
        (#""type":"converted","revenue":-0.01"#, "revenue"),
        (#""type":"renewed","revenue":-9.99"#, "revenue"),
        (#""type":"refunded","revenue":5"#, "revenue"),
        (#""type":"exposure","experiment":"x","variant":"a","revenue":50"#, "revenue"),
        (#""type":"trial_started","trail_days":7"#, "trail_days"),
        (##""type":"cancelled","copy_text":"hi""##, "copy_text"),
    ])
    func refused(fields: String, field: String) throws {
        let r = try #require(rejection("{\(base),\(fields)}"), "\(fields) was accepted")
        #expect(r.problems.contains { $0.field == field }, "\(r)")
        #expect(!r.ignored)
    }

    @Test func aTypoGetsTheNearestKey() throws {
        let r = try #require(rejection(#"{\#(base),"type":"trial_started","trail_days":7}"#))
        #expect(r.reason.contains("did you mean 'trial_days'?"), "\(r)")
    }

    @Test func aTimeAheadOfTheClockIsRefusedAndTenMinutesIsAllowed() throws {
        let line = { (ts: String) in #"{"event_id":"e","type":"renewed","user_id":"u","ts":"\#(ts)","revenue":1}"# }
        #expect(rejection(line("2026-12-01T12:10:00Z"), with: clock) == nil)
        #expect(rejection(line("2026-12-01T12:10:01Z"), with: clock)?.field == "ts")
        #expect(rejection(line("2099-01-01T00:00:00Z"), with: clock)?.field == "ts")
        // Without a clock (simulate, demo) any time is taken.
        #expect(rejection(line("2099-01-01T00:00:00Z")) == nil)
    }

    @Test func anAppKeysOldExposureIsRefused() throws {
        let app = parser.receiving(at: Timestamp(rfc3339: "2026-12-20T00:00:00Z")!, appKey: true)
        let exposure = #"{"event_id":"e","type":"exposure","user_id":"u","ts":"2026-12-01T10:00:00Z","experiment":"x","variant":"a"}"#
        #expect(rejection(exposure, with: app)?.field == "ts")
        #expect(rejection(exposure, with: parser.receiving(at: Timestamp(rfc3339: "2026-12-20T00:00:00Z")!)) == nil)
    }

    @Test func anUnknownExperimentIsIgnoredNotRefused() throws {
        let strict = EventParser(catalog: KnownVariants(["exp": ["a", "b"]]))
        let exposure = #"{"event_id":"e","type":"exposure","user_id":"u","ts":"2026-12-01T10:00:00Z","experiment":"gone","variant":"a"}"#
        let r = try #require(rejection(exposure, with: strict))
        #expect(r.ignored && r.field == "experiment" && r.reason.hasPrefix("unknown_experiment"))
        #expect(r.kept == nil, "an exposure for an unknown experiment is not stored")
        // Any other event is kept without the experiment, so no payment is lost; the nearest id is named.
        let purchase = #"{"event_id":"p","type":"purchased","user_id":"u","ts":"2026-12-01T10:00:00Z","experiment":"exq","revenue":5}"#
        let ignored = try #require(rejection(purchase, with: strict))
        #expect(ignored.ignored && ignored.reason == "unknown_experiment: no experiment 'exq' in the folder (did you mean 'exp'?); the purchased event is stored without it")
        let kept = try #require(ignored.kept)
        #expect(kept.experiment == nil && kept.revenue == 5 && kept.id == "p" && kept.type == .purchased)
        // A webhook's event is stored the same way.
        let webhook = Event(id: "w", type: .renewed, userID: "u", timestamp: Timestamp(microseconds: 0), experiment: "gone", revenue: 5)
        #expect(try strict.check(webhook).get().experiment == nil)
        // A line with a real problem besides is refused, not ignored.
        #expect(rejection(#"{"event_id":"p","type":"purchased","user_id":"u","ts":"2026-12-01T10:00:00Z","experiment":"gone","revenue":-5}"#, with: strict)?.ignored == false)
    }

    @Test func webhookEventsGetTheSameSignRule() {
        let refund = Event(id: "w", type: .refunded, userID: "u", timestamp: Timestamp(microseconds: 0), revenue: 10)
        #expect(parser.check(refund).failure?.field == "revenue")
    }
}
