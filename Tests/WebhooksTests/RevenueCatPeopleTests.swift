import ExperimentDefinitions
import Testing
@testable import Webhooks

/// People (one person, many ids) from RevenueCat: `aliases` and `original_app_user_id` link to
/// `app_user_id`; a `TRANSFER` links its anonymous `transferred_from` ids to the first
/// `transferred_to` id, and one between known ids is ignored with that reason.
@Suite struct RevenueCatPeopleTests {
    func map(_ event: String) throws -> WebhookOutcome {
        try RevenueCatMapping.map(Array(#"{"api_version":"1.0","event":\#(event)}"#.utf8))
    }

    @Test func aliasesAndTheOriginalIDLinkToTheAppUser() throws {
        let outcome = try map(#"{"type":"INITIAL_PURCHASE","id":"rc-1","app_user_id":"acct-7","original_app_user_id":"$RCAnonymousID:abc","aliases":["$RCAnonymousID:abc","acct-7","$RCAnonymousID:def"],"price":9.99,"purchased_at_ms":1764583200000}"#)
        guard case .event(let e, _) = outcome else { Issue.record("expected an event"); return }
        #expect(e.userID == "acct-7" && e.type == .purchased)
        #expect(e.links == [MappedLink(user: "$RCAnonymousID:abc", identity: "acct-7"), MappedLink(user: "$RCAnonymousID:def", identity: "acct-7")])
        let bad = #expect(throws: WebhookError.self) { try map(#"{"type":"RENEWAL","id":"r","app_user_id":"u","aliases":[1],"price":1,"purchased_at_ms":1}"#) }
        #expect(bad?.field == "event.aliases")
    }

    @Test func aTransferFromAnAnonymousIDLinksIt() throws {
        let outcome = try map(#"{"type":"TRANSFER","id":"t-1","transferred_from":["$RCAnonymousID:abc","acct-1"],"transferred_to":["acct-2","acct-3"],"event_timestamp_ms":1764583200000}"#)
        #expect(outcome == .links([MappedLink(user: "$RCAnonymousID:abc", identity: "acct-2")], timestampMilliseconds: 1764583200000, type: "TRANSFER"))
        let known = try map(#"{"type":"TRANSFER","id":"t-2","transferred_from":["acct-1"],"transferred_to":["acct-2"],"event_timestamp_ms":1764583200000}"#)
        #expect(known == .ignored(type: "TRANSFER", reason: .transferBetweenKnownIDs))
        #expect(throws: WebhookError.self) { try map(#"{"type":"TRANSFER","id":"t-3","transferred_from":["$RCAnonymousID:x"],"event_timestamp_ms":1}"#) }
    }
}
