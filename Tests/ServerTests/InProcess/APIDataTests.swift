import Foundation
import Server
import Testing
import TestSupport

/// Endpoints backed by the Assigner, PaywallCopy and the event store, in process (moved from
/// EndToEndTests/ServeDataTests, which keeps the check that `abctl assign` agrees).
@Suite(.timeLimit(.minutes(2)))
struct APIDataTests {
    static let ios = #""attributes":{"platform":"ios","country":"US","app_version":"2.3.0","new_user":true}"#

    func assign(_ server: InProcessServer, _ user: String, extra: String = "") async throws -> [[String: Any]] {
        let reply = await server.request("POST", "/v1/assign", body: #"{"user_id":"\#(user)",\#(Self.ios)\#(extra)}"#)
        #expect(reply.status == 200, "\(reply.text)")
        #expect(reply.json?["user_id"] as? String == user)
        return reply.json?["assignments"] as? [[String: Any]] ?? []
    }

    @Test func assignAnswersEveryExperimentWithItsPaywall() async throws {
        let server = try InProcessServer()
        let answers = try await assign(server, "user-42")
        #expect(answers.map { $0["experiment"] as? String } == ["chorus-discount-framing", "chorus-paywall-copy", "chorus-trial-length", "chorus-voice"])
        for a in answers {
            let bucket = try #require(a["bucket"] as? Double)
            #expect(bucket >= 0 && bucket < 1)
            #expect(a["reason"] is String)
            if a["in_experiment"] as? Bool == true {
                #expect(a["variant"] is String)
                let paywall = try #require(a["paywall"] as? [String: Any])
                #expect(paywall["offering"] as? String == "chorus_plus")
                #expect(paywall["trial_days"] is Int)
                #expect((paywall["copy"] as? [String: Any])?["source"] is String)
            } else {
                #expect(a["variant"] is NSNull)
                #expect(a["paywall"] is NSNull)
            }
        }
        // Namespaces split the paywall slot: a user is in at most one of the three that share it
        // (the bandit chorus-voice has no namespace: it is shown at another placement).
        #expect(answers.filter { $0["in_experiment"] as? Bool == true && $0["experiment"] as? String != "chorus-voice" }.count <= 1)
    }

    @Test func assignResolvesCopyFromVariablesAndSignals() async throws {
        let server = try InProcessServer()
        // qa-device-2 is forced into the 'name' arm: a template filled from variables.
        let named = try await assign(server, "qa-device-2", extra: #","variables":{"userName":"Ana"},"experiments":["chorus-paywall-copy"]"#)
        #expect(named.count == 1)
        #expect(named[0]["variant"] as? String == "name")
        #expect(named[0]["reason"] as? String == "forced")
        #expect(named[0]["in_experiment"] as? Bool == false)
        let copy = try #require((named[0]["paywall"] as? [String: Any])?["copy"] as? [String: Any])
        #expect(copy["source"] as? String == "template")
        #expect((copy["text"] as? String)?.hasPrefix("Ana") == true, "\(copy)")
        // qa-device-1 is forced into the 'ai' arm: with no signals the fallback ships, with one the recipe.
        let fallback = try await assign(server, "qa-device-1", extra: #","experiments":["chorus-paywall-copy"]"#)
        let fallbackCopy = try #require((fallback[0]["paywall"] as? [String: Any])?["copy"] as? [String: Any])
        #expect(fallbackCopy["source"] as? String == "fallback")
        #expect(fallbackCopy["fallback_reason"] as? String == "empty_brief")
    }

    @Test func assignFieldErrors() async throws {
        let server = try InProcessServer()
        let unknown = await server.request("POST", "/v1/assign", body: #"{"user_id":"u","experiments":["nope"]}"#)
        #expect(unknown.status == 400)
        #expect(unknown.errorCode == "unknown_experiment")
        #expect(unknown.error?["field"] as? String == "experiments")
        let noUser = await server.request("POST", "/v1/assign", body: #"{"attributes":{}}"#)
        #expect(noUser.status == 400)
        #expect(noUser.error?["field"] as? String == "user_id")
        let badVariable = await server.request("POST", "/v1/assign", body: #"{"user_id":"u","variables":{"userName":3}}"#)
        #expect(badVariable.status == 400)
        #expect(badVariable.error?["field"] as? String == "variables.userName")
        let attributesNotObject = await server.request("POST", "/v1/assign", body: #"{"user_id":"u","attributes":[1]}"#)
        #expect(attributesNotObject.status == 400)
        #expect(attributesNotObject.error?["field"] as? String == "attributes")
        // A known attribute of the wrong type is the client's bug, not a targeting miss.
        for (body, field) in [(#"{"user_id":"u","attributes":{"platform":3}}"#, "attributes.platform"),
                              (#"{"user_id":"u","attributes":{"country":true,"platform":"ios"}}"#, "attributes.country"),
                              (#"{"user_id":"u","attributes":{"language":["en"]}}"#, "attributes.language"),
                              (#"{"user_id":"u","attributes":{"app_version":2.3}}"#, "attributes.app_version"),
                              (#"{"user_id":"u","attributes":{"new_user":"true"}}"#, "attributes.new_user")] {
            let answer = await server.request("POST", "/v1/assign", body: body)
            #expect(answer.status == 400, "\(body)")
            #expect(answer.errorCode == "invalid_field")
            #expect(answer.error?["field"] as? String == field)
        }
        // Null is absent; other attributes take any type the targeting language reads.
        let fine = await server.request("POST", "/v1/assign", body: #"{"user_id":"u","attributes":{"platform":null,"tier":3,"new_user":false}}"#)
        #expect(fine.status == 200)
    }

    @Test
    func stickyAssignmentFollowsTheStoredExposure() async throws {
        let server = try InProcessServer()
        // Find a user in the copy experiment, then record an exposure to a different arm.
        var user = ""
        var first = ""
        for i in 0..<200 {
            let a = try await assign(server, "sticky-\(i)", extra: #","experiments":["chorus-paywall-copy"]"#)[0]
            if a["reason"] as? String == "assigned", let v = a["variant"] as? String { user = "sticky-\(i)"; first = v; break }
        }
        #expect(!user.isEmpty)
        let other = ["control", "name", "ai"].first { $0 != first }!
        let exposure = #"{"event_id":"x-\#(user)","type":"exposure","user_id":"\#(user)","experiment":"chorus-paywall-copy","variant":"\#(other)","ts":"2026-12-01T10:00:00Z"}"#
        #expect(await server.request("POST", "/v1/events", body: exposure).status == 200)
        let again = try await assign(server, user, extra: #","experiments":["chorus-paywall-copy"]"#)[0]
        #expect(again["variant"] as? String == other)
        #expect(again["reason"] as? String == "sticky")
    }

    static func event(_ id: String, user: String = "u1", type: String = "trial_started") -> String {
        #"{"event_id":"\#(id)","type":"\#(type)","user_id":"\#(user)","ts":"2026-12-01T10:01:00Z"}"#
    }

    @Test
    func eventsAreStoredOnceAndCounted() async throws {
        let server = try InProcessServer()
        let ndjson = [Self.event("a1"), Self.event("a2"), "", Self.event("a3")].joined(separator: "\n") + "\n"
        let first = await server.request("POST", "/v1/events", headers: ["Content-Type": "application/x-ndjson"], body: ndjson)
        #expect(first.status == 200)
        #expect(first.json?["stored"] as? Int == 3)
        #expect(first.json?["duplicate"] as? Int == 0)
        #expect(first.json?["rejected"] as? Int == 0)
        let array = "[" + [Self.event("a3"), Self.event("a4"), Self.event("a4")].joined(separator: ",") + "]"
        let second = await server.request("POST", "/v1/events", headers: ["Content-Type": "application/json"], body: array)
        #expect(second.status == 200)
        #expect(second.json?["stored"] as? Int == 1)
        #expect(second.json?["duplicate"] as? Int == 2)
        let empty = await server.request("POST", "/v1/events", body: "[]")
        #expect(empty.status == 200)
        #expect(empty.json?["stored"] as? Int == 0)
        #expect(await server.request("GET", "/metrics").text.contains(#"abctl_events_total{outcome="stored"} 4"#))
    }

    @Test
    func aBatchWithAnInvalidEventIsRejectedWhole() async throws {
        let server = try InProcessServer()
        let body = [Self.event("b1"),
                    #"{"event_id":"b2","type":"exposure","user_id":"u","experiment":"chorus-paywall-copy","variant":"zz","ts":"2026-12-01T10:00:00Z"}"#,
                    #"{"event_id":"b3","type":"trial_started","user_id":"u","ts":"yesterday"}"#].joined(separator: "\n")
        let reply = await server.request("POST", "/v1/events", body: body)
        #expect(reply.status == 422)
        #expect(reply.errorCode == "invalid_event")
        #expect(reply.error?["field"] as? String == "variant")
        #expect(reply.json?["stored"] as? Int == 0)
        #expect(reply.json?["rejected"] as? Int == 2)
        let rejections = try #require(reply.json?["rejections"] as? [[String: Any]])
        #expect(rejections.map { $0["line"] as? Int } == [2, 3])
        #expect(rejections.map { $0["field"] as? String } == ["variant", "ts"])
        // b1 was not stored: sending it alone stores it now.
        let alone = await server.request("POST", "/v1/events", body: Self.event("b1"))
        #expect(alone.json?["stored"] as? Int == 1)

        let syntax = await server.request("POST", "/v1/events", body: Self.event("c1") + "\n{\"event_id\": ")
        #expect(syntax.status == 400)
        #expect(syntax.errorCode == "invalid_json")
        #expect((syntax.json?["rejections"] as? [[String: Any]])?.first?["line"] as? Int == 2)
        let brokenArray = await server.request("POST", "/v1/events", body: "[" + Self.event("c2"))
        #expect(brokenArray.status == 400)
        let empty = await server.request("POST", "/v1/events", body: "\n\n")
        #expect(empty.status == 400)
        #expect(empty.errorCode == "empty_body")
        #expect(await server.request("POST", "/v1/events", body: Self.event("c1")).json?["stored"] as? Int == 1)
    }

    @Test
    func revenueCatWebhook() async throws {
        let server = try InProcessServer {
            $0.keys = try APIKeys.parse(environment: "k1:ingest")
            $0.revenueCatAuthorization = "Bearer rc-secret"
        }
        let trial = #"{"api_version":"1.0","event":{"type":"INITIAL_PURCHASE","period_type":"TRIAL","id":"rc-1","app_user_id":"u9","product_id":"chorus.plus.annual","price":0,"purchased_at_ms":1764583200000,"event_timestamp_ms":1764583201000}}"#
        let unauthorized = await server.request("POST", "/v1/webhooks/revenuecat", body: trial)
        #expect(unauthorized.status == 401)
        #expect(unauthorized.errorCode == "unauthorized")
        // An API key is not the webhook's secret.
        #expect(await server.request("POST", "/v1/webhooks/revenuecat", headers: ["Authorization": "Bearer k1"], body: trial).status == 401)
        let auth = ["Authorization": "Bearer rc-secret"]
        let stored = await server.request("POST", "/v1/webhooks/revenuecat", headers: auth, body: trial)
        #expect(stored.status == 200, "\(stored.text)")
        #expect(stored.json?["status"] as? String == "stored")
        #expect(stored.json?["type"] as? String == "trial_started")
        let retry = await server.request("POST", "/v1/webhooks/revenuecat", headers: auth, body: trial)
        #expect(retry.json?["status"] as? String == "duplicate")
        let ignored = await server.request("POST", "/v1/webhooks/revenuecat", headers: auth, body: #"{"event":{"type":"SUBSCRIPTION_EXTENDED","id":"rc-2","app_user_id":"u9"}}"#)
        #expect(ignored.status == 200)
        #expect(ignored.json?["status"] as? String == "ignored")
        let noUser = await server.request("POST", "/v1/webhooks/revenuecat", headers: auth, body: #"{"event":{"type":"RENEWAL","id":"rc-3","purchased_at_ms":1}}"#)
        #expect(noUser.status == 422)
        #expect(noUser.error?["field"] as? String == "event.app_user_id")
        let metrics = await server.request("GET", "/metrics").text
        #expect(metrics.contains(#"abctl_webhook_events_total{outcome="mapped",type="trial_started"} 1"#))
        #expect(metrics.contains(#"abctl_webhook_events_total{outcome="duplicate",type="trial_started"} 1"#))
        #expect(metrics.contains(#"abctl_webhook_events_total{outcome="ignored",type="SUBSCRIPTION_EXTENDED"} 1"#))
        // The mapped event is a real event: the same id through /v1/events is a duplicate.
        let same = await server.request("POST", "/v1/events", headers: ["Authorization": "Bearer k1"],
                                      body: #"{"event_id":"rc-1","type":"trial_started","user_id":"u9","ts":"2026-12-01T10:00:00Z"}"#)
        #expect(same.json?["duplicate"] as? Int == 1)
    }

    @Test
    func storeUnavailableIs503AndNothingIsAcknowledged() async throws {
        let server = try InProcessServer()
        #expect(await server.request("POST", "/v1/events", body: Self.event("d0")).status == 200)
        // Another process holds the write lock longer than the store's busy timeout.
        // It holds the lock until the file `release` appears beside the database, 25 s at most.
        let release = server.folder.path + "/release"
        let locker = try ChildProcess("/usr/bin/python3", ["-c", """
            import os, sqlite3, sys, time
            c = sqlite3.connect(sys.argv[1], isolation_level=None)
            c.execute('BEGIN EXCLUSIVE')
            print('locked', flush=True)
            deadline = time.time() + 25
            while not os.path.exists(sys.argv[2]) and time.time() < deadline: time.sleep(0.02)
            """, server.databasePath, release])
        #expect(await locker.firstLine(within: .seconds(20)) { $0 == "locked" ? true : nil } == true)
        let reply = await server.request("POST", "/v1/events", body: Self.event("d1"))
        #expect(reply.status == 503)
        #expect(reply.errorCode == "store_unavailable")
        server.folder.write("release", "")
        #expect(await locker.exit() == 0)
        // Not stored: it is new when the store is back.
        let retry = await server.request("POST", "/v1/events", body: Self.event("d1"))
        #expect(retry.status == 200)
        #expect(retry.json?["stored"] as? Int == 1)
    }
}
