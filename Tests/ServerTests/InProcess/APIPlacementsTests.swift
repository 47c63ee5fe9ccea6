import Foundation
import Server
import Testing

/// `/v1/assign` with `placement` on the shipped `Experiments/placements.json`, and the
/// `app` key scope: assign and exposures only; any other event refuses the whole batch. In process
/// (moved from EndToEndTests/ServePlacementsTests, which keeps the check that `abctl assign` agrees).
@Suite(.timeLimit(.minutes(4)))
struct APIPlacementsTests {
    static let keys = "app-key:app;ingest-key:ingest;assign-key:assign"

    @Test func aPlacementAnswersInTheShapeOfTheSpec() async throws {
        let server = try InProcessServer { $0.keys = try APIKeys.parse(environment: Self.keys) }
        let auth = ["Authorization": "Bearer app-key"]
        var reasons: [String: Int] = [:]
        for n in 0..<200 {
            let reply = await server.request("POST", "/v1/assign", headers: auth, body: #"{"user_id":"user-\#(n)","attributes":{"platform":"ios","new_user":true,"country":"US","app_version":"2.4.0"},"placement":"onboarding_end"}"#)
            #expect(reply.status == 200)
            let a = try #require(reply.json)
            #expect(Set(a.keys) == ["user_id", "placement", "audience", "show_paywall", "paywall", "experiment", "variant", "in_experiment", "reason", "holdouts"])
            #expect(a["placement"] as? String == "onboarding_end" && a["audience"] as? String == "new-ios")
            #expect(a["experiment"] as? String == "chorus-paywall-copy" && a["show_paywall"] as? Bool == true)
            let reason = try #require(a["reason"] as? String)
            reasons[reason, default: 0] += 1
            #expect((a["variant"] is String) == (a["in_experiment"] as? Bool == true))
            // A resolved paywall carries its offering's plans.
            let paywall = try #require(a["paywall"] as? [String: Any])
            let plans = try #require(paywall["plans"] as? [[String: Any]])
            #expect(plans.map { $0["product_id"] as? String } == ["chorus.plus.monthly", "chorus.plus.annual"])
            #expect(plans.allSatisfy { $0["currency"] as? String == "USD" && $0["period"] is String && $0["price"] is Double })
        }
        #expect(reasons["assigned", default: 0] > 40, "\(reasons)")

        // No audience matches: the default, with the reason; an audience's null paywall: nothing to show.
        let web = try #require(await server.request("POST", "/v1/assign", headers: auth, body: #"{"user_id":"w","attributes":{"platform":"web"},"placement":"feature_gate"}"#).json)
        #expect(web["reason"] as? String == "audience" && web["show_paywall"] as? Bool == false && web["paywall"] is NSNull && web["audience"] as? String == "web")
        let other = try #require(await server.request("POST", "/v1/assign", headers: auth, body: #"{"user_id":"w","attributes":{"platform":"macos"},"placement":"feature_gate"}"#).json)
        #expect(other["reason"] as? String == "default" && other["audience"] is NSNull && other["experiment"] is NSNull && other["show_paywall"] as? Bool == true)
        let plans = try #require((other["paywall"] as? [String: Any])?["plans"] as? [[String: Any]])
        #expect(plans.map { $0["highlighted"] as? Bool } == [false, true])

        // Unknown placements and both forms at once are 400s naming the field.
        let unknown = await server.request("POST", "/v1/assign", headers: auth, body: #"{"user_id":"u","placement":"nope"}"#)
        #expect(unknown.status == 400 && (unknown.json?["error"] as? [String: Any])?["field"] as? String == "placement")
        let both = await server.request("POST", "/v1/assign", headers: auth, body: #"{"user_id":"u","placement":"feature_gate","experiments":["chorus-paywall-copy"]}"#)
        #expect(both.status == 400 && (both.json?["error"] as? [String: Any])?["code"] as? String == "placement_and_experiments")
    }

    @Test func anAppKeyPostsExposuresOnly() async throws {
        let server = try InProcessServer { $0.keys = try APIKeys.parse(environment: Self.keys) }
        let app = ["Authorization": "Bearer app-key", "Content-Type": "application/x-ndjson"]
        let exposure = #"{"event_id":"e1","type":"exposure","user_id":"u1","experiment":"chorus-paywall-copy","variant":"name","ts":"2026-12-01T10:00:00Z"}"#
        let purchase = #"{"event_id":"e2","type":"purchased","user_id":"u1","ts":"2026-12-01T10:05:00Z","revenue":59.99}"#

        // A batch with a purchase is refused whole: 403, and the exposure in it is not stored either.
        let refused = await server.request("POST", "/v1/events", headers: app, body: exposure + "\n" + purchase + "\n")
        #expect(refused.status == 403)
        let error = try #require(refused.json?["error"] as? [String: Any])
        #expect(error["code"] as? String == "app_scope" && error["field"] as? String == "type")
        let stored = await server.request("POST", "/v1/events", headers: app, body: exposure + "\n")
        #expect(stored.status == 200 && stored.json?["stored"] as? Int == 1, "\(stored.text)")

        // The ingest key may post purchases; the app key may assign but nothing else.
        #expect(await server.request("POST", "/v1/events", headers: ["Authorization": "Bearer ingest-key"], body: purchase + "\n").json?["stored"] as? Int == 1)
        #expect(await server.request("POST", "/v1/assign", headers: ["Authorization": "Bearer app-key"], body: #"{"user_id":"u1"}"#).status == 200)
        #expect(await server.request("POST", "/v1/copy/check", headers: ["Authorization": "Bearer app-key"],
                                   body: #"{"experiment":"chorus-paywall-copy","variant":"ai","text":"Chorus"}"#).status == 403)
        #expect(await server.request("GET", "/v1/experiments", headers: ["Authorization": "Bearer app-key"]).status == 403)
        // An assign key does not post exposures.
        #expect(await server.request("POST", "/v1/events", headers: ["Authorization": "Bearer assign-key"], body: exposure + "\n").status == 403)
    }
}
