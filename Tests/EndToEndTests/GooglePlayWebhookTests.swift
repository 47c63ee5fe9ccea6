import Foundation
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `POST /v1/webhooks/googleplay` (SPEC §7) through a live `abctl serve`, with a local fake of
/// Google's token endpoint and Play Developer API: push tokens judged by google-auth at the real
/// clock, then notifications in Google's documented shapes mapped, stored and reported per arm
/// as counted by hand; a failed lookup answers 503 and stores nothing.
@Suite(.timeLimit(.minutes(3)))
struct GooglePlayWebhookTests {
    static let audience = "https://abctl.example.com/v1/webhooks/googleplay"
    static let account = "play-push@chorus-app.iam.gserviceaccount.com"
    static let package = "com.example.chorus"

    struct TokenCase: Decodable {
        var name: String
        var token: String
        var accepted: Bool
    }

    struct Push: Decodable {
        var name: String
        var body: String
        var token: String
        var status: String
        var type: String?
    }

    /// A server wired to the fake, with the keys tokens.py made in `folder`.
    static func serve(_ folder: TemporaryFolder, _ fake: FakeGooglePlay, experiments: ((String) throws -> Void)? = nil) async throws -> ServeProcess {
        let keyFile = folder.write("service-account.json", fake.serviceAccountKey(privateKeyPEM: try await FakeGooglePlay.makePrivateKeyPEM()))
        return try await ServeProcess.start(arguments: ["--google-certs", folder.path + "/jwks.json", "--googleplay-audience", audience,
                                                     "--googleplay-push-account", account, "--googleplay-package", package,
                                                     "--googleplay-service-account", keyFile, "--googleplay-api-url", fake.apiURL],
                                            experiments: experiments)
    }

    static func python(_ arguments: [String]) async throws {
        try await StripeWebhookTests.python(arguments)
    }

    static func testPush(messageID: String, package: String = GooglePlayWebhookTests.package) -> String {
        let data = Data(#"{"version":"1.0","packageName":"\#(package)","eventTimeMillis":"1764590400000","testNotification":{"version":"1.0"}}"#.utf8).base64EncodedString()
        return #"{"message":{"data":"\#(data)","messageId":"\#(messageID)","publishTime":"2026-12-01T10:00:00Z"},"subscription":"projects/p/subscriptions/s"}"#
    }

    @Test func acceptsExactlyTheTokensGoogleAuthAccepts() async throws {
        let folder = TemporaryFolder()
        try await Self.python([Abctl.packageRoot + "/Tests/WebhooksTests/Fixtures/googleplay/tokens.py", folder.path])
        let cases = try JSONDecoder().decode([TokenCase].self, from: Data(contentsOf: URL(fileURLWithPath: folder.path + "/tokens.json")))
        #expect(cases.count >= 20)
        let fake = try FakeGooglePlay(package: Self.package)
        let server = try await Self.serve(folder, fake)
        // Tokens valid or not by a second either way were judged at the script's second; the
        // server reads its clock later, so those are checked with the fixed clock of the unit test.
        let clockEdges = ["good_issued_now_expires_now", "good_float_times", "issued_in_the_future"]
        for c in cases where !clockEdges.contains(c.name) {
            let reply = try await server.request("POST", "/v1/webhooks/googleplay", headers: ["Authorization": "Bearer " + c.token, "Content-Type": "application/json"],
                                           body: Self.testPush(messageID: c.name))
            if c.accepted {
                #expect(reply.status == 200 && reply.json?["status"] as? String == "ignored", "\(c.name): \(reply.status) \(reply.text)")
            } else {
                #expect(reply.status == 401, "\(c.name): \(reply.status) \(reply.text)")
            }
        }
        let good = try #require(cases.first { $0.name == "good" })
        let wrongPackage = try await server.request("POST", "/v1/webhooks/googleplay", headers: ["Authorization": "Bearer " + good.token],
                                              body: Self.testPush(messageID: "m", package: "com.other.app"))
        #expect(wrongPackage.status == 401 && wrongPackage.json.flatMap { ($0["error"] as? [String: Any])?["code"] as? String } == "wrong_package", "\(wrongPackage.text)")
        let noToken = try await server.request("POST", "/v1/webhooks/googleplay", body: Self.testPush(messageID: "m"))
        #expect(noToken.status == 401)
        #expect(fake.requests.isEmpty, "nothing was looked up")
    }

    @Test func mapsNotificationsAndTheReportMatchesTheHandCount() async throws {
        let folder = TemporaryFolder()
        let now = Int(Date().timeIntervalSince1970)
        try await Self.python([Abctl.packageRoot + "/Tests/WebhooksTests/Fixtures/googleplay/tokens.py", folder.path])
        try await Self.python([Abctl.packageRoot + "/Tests/EndToEndTests/Fixtures/googleplay/pushes.py", folder.path, Self.audience, Self.account, Self.package, String(now)])
        let pushes = try JSONDecoder().decode([Push].self, from: Data(contentsOf: URL(fileURLWithPath: folder.path + "/pushes.json")))
        let purchases = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder.path + "/purchases.json"))) as? [String: Any])
        let fake = try FakeGooglePlay(package: Self.package)
        for (token, purchase) in purchases {
            fake.setPurchase(token, json: String(decoding: try JSONSerialization.data(withJSONObject: purchase), as: UTF8.self))
        }
        let server = try await Self.serve(folder, fake) { try StripeWebhookTests.experiment.write(toFile: $0 + "/webhook-revenue.json", atomically: true, encoding: .utf8) }
        let exposed = RFC3339Text.format(now - 10 * 86_400)
        let exposures = [("p1", "trial-7d"), ("p2", "trial-3d"), ("p3", "trial-3d")].map { user, arm in
            #"{"event_id":"x-\#(user)","type":"exposure","user_id":"\#(user)","experiment":"webhook-revenue","variant":"\#(arm)","ts":"\#(exposed)"}"#
        }.joined(separator: "\n")
        #expect(try await server.request("POST", "/v1/events", body: exposures).status == 200)

        // A lookup that fails answers 503 and stores nothing; Pub/Sub's retry then goes through.
        let first = try #require(pushes.first)
        fake.setPurchase("tok-p1-trial", .status(500))
        let failed = try await server.request("POST", "/v1/webhooks/googleplay", headers: ["Authorization": "Bearer " + first.token], body: first.body)
        #expect(failed.status == 503, "\(failed.text)")
        #expect(try await StripeWebhookTests.storedCount(server) == 3)
        fake.setPurchase("tok-p1-trial", json: String(decoding: try JSONSerialization.data(withJSONObject: purchases["tok-p1-trial"]!), as: UTF8.self))

        for push in pushes {
            let reply = try await server.request("POST", "/v1/webhooks/googleplay", headers: ["Authorization": "Bearer " + push.token, "Content-Type": "application/json"],
                                           body: push.body)
            #expect(reply.status == 200, "\(push.name): \(reply.status) \(reply.text)")
            #expect(reply.json?["status"] as? String == push.status, "\(push.name): \(reply.text)")
            if let type = push.type { #expect(reply.json?["type"] as? String == type, "\(push.name): \(reply.text)") }
        }
        #expect(fake.tokensIssued == 1, "one service-account token served every lookup")
        let metrics = try await server.request("GET", "/metrics").text
        #expect(metrics.contains(#"abctl_googleplay_notifications_total{outcome="no_user",type="subscriptionNotification.4"} 1"#), "\(metrics)")
        #expect(metrics.contains(#"abctl_googleplay_notifications_total{outcome="no_user",type="voidedPurchaseNotification"} 1"#))
        #expect(metrics.contains(#"abctl_googleplay_notifications_total{outcome="ignored",type="testNotification"} 1"#))

        let report = try await WebhookReport.fetch(server)
        // By hand. trial-7d: p1 trial, converted 59.99, renewed 59.99. trial-3d: p2 purchased
        // 29.99 and voided; p3 trial, cancelled.
        report.expect("trial-7d", counts: ["trial_start_rate": 1, "paid_conversion": 1, "trial_to_paid": 1], revenue: 119.98)
        report.expect("trial-3d", counts: ["trial_start_rate": 1, "paid_conversion": 1, "refund_rate": 1, "trial_cancel_rate": 1], revenue: 0)
    }

    @Test func offWithoutItsFlagsAndAllOrNone() async throws {
        let server = try await ServeProcess.start()
        #expect(try await server.request("POST", "/v1/webhooks/googleplay", body: "{}").status == 404)
        let half = try await Abctl.run(["serve", "--port", "0", "--googleplay-package", Self.package])
        #expect(half.status == 2)
        #expect(half.stderr.contains("--google-certs"))
    }
}
