import Testing
import Events

/// An exposure may carry `store_account_id`, a `trial_started` may carry `trial_days`;
/// each is refused elsewhere and when malformed, naming the field.
struct StoreFieldsParsingTests {
    let parser = EventParser()

    func parse(_ line: String) -> Result<Event, EventRejection>? { parser.parse(line: line) }

    func rejectedField(_ line: String) -> String? {
        if case .failure(let r)? = parse(line) { return r.field }
        return nil
    }

    @Test func anExposureCarriesItsStoreAccountID() throws {
        let line = #"{"event_id":"e","type":"exposure","user_id":"u","ts":"2026-12-01T10:00:00Z","experiment":"x","variant":"a","store_account_id":"6f1a3c2e-8d4b-4f7a-9c0e-2b5d7e9f1a3c"}"#
        let event = try #require(try parse(line)?.get())
        #expect(event.storeAccountID == "6f1a3c2e-8d4b-4f7a-9c0e-2b5d7e9f1a3c" && event.trialDays == nil)
        let none = try #require(try parse(#"{"event_id":"e","type":"exposure","user_id":"u","ts":"2026-12-01T10:00:00Z","experiment":"x","variant":"a","store_account_id":null}"#)?.get())
        #expect(none.storeAccountID == nil)
    }

    /// A bandit's exposure echoes `allocation_period`, kept on the event (the report counts the
    /// user in that period); a time it is not, or on another type, is refused naming it.
    @Test func anExposureCarriesItsAllocationPeriod() throws {
        let event = try #require(try parse(#"{"event_id":"e","type":"exposure","user_id":"u","ts":"2026-12-02T00:00:03Z","experiment":"x","variant":"a","allocation_period":"2026-12-01T00:00:00Z"}"#)?.get())
        #expect(event.allocationPeriod == Timestamp(rfc3339: "2026-12-01T00:00:00Z"))
        let none = try #require(try parse(#"{"event_id":"e","type":"exposure","user_id":"u","ts":"2026-12-02T00:00:03Z","experiment":"x","variant":"a"}"#)?.get())
        #expect(none.allocationPeriod == nil)
        #expect(rejectedField(#"{"event_id":"e","type":"exposure","user_id":"u","ts":"2026-12-02T00:00:03Z","experiment":"x","variant":"a","allocation_period":"yesterday"}"#) == "allocation_period")
        #expect(rejectedField(#"{"event_id":"e","type":"trial_started","user_id":"u","ts":"2026-12-02T00:00:03Z","allocation_period":"2026-12-01T00:00:00Z"}"#) == "allocation_period")
    }

    @Test func aTrialStartCarriesTheGrantedTrial() throws {
        let event = try #require(try parse(#"{"event_id":"e","type":"trial_started","user_id":"u","ts":"2026-12-01T10:00:00Z","trial_days":7}"#)?.get())
        #expect(event.trialDays == 7)
        let zero = try #require(try parse(#"{"event_id":"e","type":"trial_started","user_id":"u","ts":"2026-12-01T10:00:00Z","trial_days":0.0}"#)?.get())
        #expect(zero.trialDays == 0)
    }

    @Test(arguments: [
        (#""type":"purchased","store_account_id":"t""#, "store_account_id"),
        (#""type":"exposure","experiment":"x","variant":"a","store_account_id":"""#, "store_account_id"),
        (#""type":"exposure","experiment":"x","variant":"a","store_account_id":7"#, "store_account_id"),
        (#""type":"exposure","experiment":"x","variant":"a","store_account_id":"\#(String(repeating: "a", count: 257))""#, "store_account_id"),
        (#""type":"exposure","experiment":"x","variant":"a","store_account_id":"a\u0000b""#, "store_account_id"),
        (#""type":"purchased","trial_days":7"#, "trial_days"),
        (#""type":"trial_started","trial_days":-1"#, "trial_days"),
        (#""type":"trial_started","trial_days":2.5"#, "trial_days"),
        (#""type":"trial_started","trial_days":"7""#, "trial_days"),
        (#""type":"trial_started","trial_days":100000"#, "trial_days"),
    ])
    func malformedOrMisplacedFieldsAreRejectedByName(fields: String, field: String) {
        #expect(rejectedField(#"{"event_id":"e","user_id":"u","ts":"2026-12-01T10:00:00Z",\#(fields)}"#) == field)
    }

    @Test func aWebhookEventIsCheckedTheSameWay() {
        var event = Event(id: "e", type: .trialStarted, userID: "u", timestamp: Timestamp(microseconds: 0), trialDays: 7)
        #expect(parser.validate(event) == nil)
        event.trialDays = -3
        #expect(parser.validate(event)?.field == "trial_days")
        event.trialDays = nil
        event.storeAccountID = "t"
        #expect(parser.validate(event)?.field == "store_account_id")
    }
}
