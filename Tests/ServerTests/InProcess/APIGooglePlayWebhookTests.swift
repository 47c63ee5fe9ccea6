import Foundation
import Testing
import TestSupport

/// `POST /v1/webhooks/googleplay` in process, with a local fake of Google's token
/// endpoint and Play Developer API: push tokens judged by google-auth at the real clock, then
/// notifications in Google's documented shapes mapped, stored and reported per arm as counted by
/// hand; a failed lookup answers 503 and stores nothing (moved from
/// EndToEndTests/GooglePlayWebhookTests, which keeps the flags).
@Suite(.timeLimit(.minutes(3)))
struct APIGooglePlayWebhookTests {
    struct TokenCase: Decodable {
        var name: String
        var token: String
        var accepted: Bool
    }

    static func testPush(messageID: String, package: String = WebhookSupport.package) -> String {
        let data = Data(#"{"version":"1.0","packageName":"\#(package)","eventTimeMillis":"1764590400000","testNotification":{"version":"1.0"}}"#.utf8).base64EncodedString()
        return #"{"message":{"data":"\#(data)","messageId":"\#(messageID)","publishTime":"2026-12-01T10:00:00Z"},"subscription":"projects/p/subscriptions/s"}"#
    }

    @Test func acceptsExactlyTheTokensGoogleAuthAccepts() async throws {
        let folder = TemporaryFolder()
        try await WebhookSupport.python([WebhookSupport.unitFixtures + "/googleplay/tokens.py", folder.path])
        let cases = try JSONDecoder().decode([TokenCase].self, from: Data(contentsOf: URL(fileURLWithPath: folder.path + "/tokens.json")))
        #expect(cases.count >= 20)
        let fake = try FakeGooglePlay(package: WebhookSupport.package)
        let server = try await WebhookSupport.googlePlayServer(folder, fake)
        // Tokens valid or not by a second either way were judged at the script's second; the
        // server reads its clock later, so those are checked with the fixed clock of the unit test.
        let clockEdges = ["good_issued_now_expires_now", "good_float_times", "issued_in_the_future"]
        for c in cases where !clockEdges.contains(c.name) {
            let reply = await server.request("POST", "/v1/webhooks/googleplay", headers: ["Authorization": "Bearer " + c.token, "Content-Type": "application/json"],
                                             body: Self.testPush(messageID: c.name))
            if c.accepted {
                #expect(reply.status == 200 && reply.json?["status"] as? String == "ignored", "\(c.name): \(reply.status) \(reply.text)")
            } else {
                #expect(reply.status == 401, "\(c.name): \(reply.status) \(reply.text)")
            }
        }
        let good = try #require(cases.first { $0.name == "good" })
        let wrongPackage = await server.request("POST", "/v1/webhooks/googleplay", headers: ["Authorization": "Bearer " + good.token],
                                                body: Self.testPush(messageID: "m", package: "com.other.app"))
        // Verified, but another app's: acknowledged as ignored (a 401 would be retried by Pub/Sub for a week), counted.
        #expect(wrongPackage.status == 200 && wrongPackage.json?["status"] as? String == "ignored"
                && wrongPackage.json?["reason"] as? String == "other_package", "\(wrongPackage.text)")
        #expect(await server.request("GET", "/metrics").text.contains(#"abctl_googleplay_notifications_total{outcome="ignored",type="notification"} 1"#))
        let noToken = await server.request("POST", "/v1/webhooks/googleplay", body: Self.testPush(messageID: "m"))
        #expect(noToken.status == 401)
        #expect(fake.requests.isEmpty, "nothing was looked up")
    }

    @Test func mapsNotificationsAndTheReportMatchesTheHandCount() async throws {
        let folder = TemporaryFolder()
        let now = Int(Date().timeIntervalSince1970)
        try await WebhookSupport.python([WebhookSupport.unitFixtures + "/googleplay/tokens.py", folder.path])
        try await WebhookSupport.python([WebhookSupport.fixtures + "/googleplay/pushes.py", folder.path, WebhookSupport.audience, WebhookSupport.account,
                                         WebhookSupport.package, String(now)])
        let pushes = try JSONDecoder().decode([WebhookSupport.Push].self, from: Data(contentsOf: URL(fileURLWithPath: folder.path + "/pushes.json")))
        let purchases = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder.path + "/purchases.json"))) as? [String: Any])
        let fake = try FakeGooglePlay(package: WebhookSupport.package)
        for (token, purchase) in purchases {
            fake.setPurchase(token, json: String(decoding: try JSONSerialization.data(withJSONObject: purchase), as: UTF8.self))
        }
        let server = try await WebhookSupport.googlePlayServer(folder, fake, experiments: WebhookSupport.addExperiment)
        let exposed = WebhookSupport.rfc3339(now - 10 * 86_400)
        let exposures = [("p1", "trial-7d"), ("p2", "trial-3d"), ("p3", "trial-3d")].map { user, arm in
            #"{"event_id":"x-\#(user)","type":"exposure","user_id":"\#(user)","experiment":"webhook-revenue","variant":"\#(arm)","ts":"\#(exposed)"}"#
        }.joined(separator: "\n")
        #expect(await server.request("POST", "/v1/events", body: exposures).status == 200)

        // A lookup that fails answers 503 and stores nothing; Pub/Sub's retry then goes through.
        let first = try #require(pushes.first)
        fake.setPurchase("tok-p1-trial", .status(500))
        let failed = await server.request("POST", "/v1/webhooks/googleplay", headers: ["Authorization": "Bearer " + first.token], body: first.body)
        #expect(failed.status == 503, "\(failed.text)")
        #expect(await WebhookSupport.storedCount(server) == 3)
        fake.setPurchase("tok-p1-trial", json: String(decoding: try JSONSerialization.data(withJSONObject: purchases["tok-p1-trial"]!), as: UTF8.self))
        // A token the Play API answers 404 for can never be read: 200 ignored with its reason, nothing stored, counted.
        let unknownData = Data(#"{"version":"1.0","packageName":"\#(WebhookSupport.package)","eventTimeMillis":"1764590400000","subscriptionNotification":{"version":"1.0","notificationType":4,"purchaseToken":"tok-nobody"}}"#.utf8).base64EncodedString()
        let unknown = await server.request("POST", "/v1/webhooks/googleplay", headers: ["Authorization": "Bearer " + first.token],
                                           body: #"{"message":{"data":"\#(unknownData)","messageId":"m-unknown","publishTime":"2026-12-01T10:00:00Z"},"subscription":"projects/p/subscriptions/s"}"#)
        #expect(unknown.status == 200 && unknown.json?["status"] as? String == "ignored" && unknown.json?["reason"] as? String == "unknown_token", "\(unknown.text)")
        #expect(await WebhookSupport.storedCount(server) == 3)

        for push in pushes {
            let lookups = fake.requests.count
            let reply = await server.request("POST", "/v1/webhooks/googleplay", headers: ["Authorization": "Bearer " + push.token, "Content-Type": "application/json"],
                                             body: push.body)
            // A redelivery is recognised from the store before the Play API is called.
            if push.status == "duplicate" { #expect(fake.requests.count == lookups, "\(push.name) called the Play API: \(fake.requests.dropFirst(lookups).map(\.path))") }
            #expect(reply.status == 200, "\(push.name): \(reply.status) \(reply.text)")
            #expect(reply.json?["status"] as? String == push.status, "\(push.name): \(reply.text)")
            if let type = push.type { #expect(reply.json?["type"] as? String == type, "\(push.name): \(reply.text)") }
        }
        #expect(fake.tokensIssued == 1, "one service-account token served every lookup")
        let metrics = await server.request("GET", "/metrics").text
        #expect(metrics.contains(#"abctl_googleplay_notifications_total{outcome="no_user",type="subscriptionNotification.4"} 1"#), "\(metrics)")
        #expect(metrics.contains(#"abctl_googleplay_notifications_total{outcome="no_user",type="voidedPurchaseNotification"} 1"#))
        #expect(metrics.contains(#"abctl_googleplay_notifications_total{outcome="ignored",type="testNotification"} 1"#))
        #expect(metrics.contains(#"abctl_googleplay_notifications_total{outcome="ignored",type="subscriptionNotification"} 1"#), "\(metrics)")

        let report = try await WebhookReport.fetch(server)
        // By hand. trial-7d: p1 trial, converted 59.99, renewed 59.99. trial-3d: p2 purchased
        // 29.99 and voided; p3 trial, cancelled.
        report.expect("trial-7d", counts: ["trial_start_rate": 1, "paid_conversion": 1, "trial_to_paid": 1], revenue: 119.98)
        report.expect("trial-3d", counts: ["trial_start_rate": 1, "paid_conversion": 1, "refund_rate": 1, "trial_cancel_rate": 1], revenue: 0)
    }

    @Test func offWithoutItsOptions() async throws {
        let server = try InProcessServer()
        #expect(await server.request("POST", "/v1/webhooks/googleplay", body: "{}").status == 404)
    }
}
