import Foundation
import Server
import Testing

/// People (one person, many ids) through `POST /v1/webhooks/revenuecat`: a purchase under the
/// account id whose `aliases` name the anonymous id the paywall was shown to counts for that
/// person; a `TRANSFER` from an anonymous id links it; one between known ids is ignored with its
/// reason.
@Suite(.timeLimit(.minutes(4)))
struct APIRevenueCatPeopleTests {
    @Test func aliasesAndTransfersJoinThePerson() async throws {
        let server = try InProcessServer { $0.revenueCatAuthorization = "Bearer rc" }
        let auth = ["Authorization": "Bearer rc"]
        let now = Int64(Date().timeIntervalSince1970 * 1000) - 60_000
        let iso = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(now - 60_000) / 1000))
        for (user, variant) in [("$RCAnonymousID:a1", "name"), ("$RCAnonymousID:b1", "ai")] {
            let exposure = #"{"event_id":"x","type":"exposure","user_id":"\#(user)","experiment":"chorus-paywall-copy","variant":"\#(variant)","ts":"\#(iso)"}"#
            #expect(await server.request("POST", "/v1/events", body: exposure).status == 200)
        }
        let purchase = #"{"event":{"type":"INITIAL_PURCHASE","id":"rc-1","app_user_id":"acct-1","original_app_user_id":"$RCAnonymousID:a1","aliases":["$RCAnonymousID:a1","acct-1"],"price":9.99,"purchased_at_ms":\#(now)}}"#
        let stored = await server.request("POST", "/v1/webhooks/revenuecat", headers: auth, body: purchase)
        #expect(stored.status == 200 && stored.json?["status"] as? String == "stored", "\(stored.text)")
        #expect(await server.request("POST", "/v1/webhooks/revenuecat", headers: auth, body: purchase).json?["status"] as? String == "duplicate")

        let transfer = #"{"event":{"type":"TRANSFER","id":"t-1","transferred_from":["$RCAnonymousID:b1"],"transferred_to":["acct-2"],"event_timestamp_ms":\#(now)}}"#
        let linked = await server.request("POST", "/v1/webhooks/revenuecat", headers: auth, body: transfer)
        #expect(linked.status == 200 && linked.json?["status"] as? String == "stored" && linked.json?["linked"] as? Int == 1, "\(linked.text)")
        let between = #"{"event":{"type":"TRANSFER","id":"t-2","transferred_from":["acct-1"],"transferred_to":["acct-2"],"event_timestamp_ms":\#(now)}}"#
        let ignored = await server.request("POST", "/v1/webhooks/revenuecat", headers: auth, body: between)
        #expect(ignored.status == 200 && ignored.json?["status"] as? String == "ignored" && ignored.json?["reason"] as? String == "transfer_between_known_ids")

        let facts = try server.store.facts(experiment: "chorus-paywall-copy")
        #expect(facts.map(\.userID.text) == ["acct-1", "acct-2"], "\(facts.map(\.userID))")
        #expect(facts[0].variant == "name" && facts[0].paid && facts[0].netRevenue == 9.99)
        #expect(facts[1].variant == "ai" && !facts[1].paid)
    }
}
