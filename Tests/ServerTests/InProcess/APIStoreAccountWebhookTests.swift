import Foundation
import Server
import Testing
import TestSupport
import Webhooks

/// Store identities through the API in process (moved from EndToEndTests): an exposure posted to
/// `/v1/events` carries `store_account_id`; an App Store notification (judged by Apple's
/// app-store-server-library) or a Google Play purchase naming only that id lands on the user who
/// carried it, with the trial the store granted as `trial_days`; an id no exposure carried is
/// taken as the user itself.
@Suite(.timeLimit(.minutes(3)))
struct APIStoreAccountWebhookTests {
    struct AppStoreCase: Decodable {
        var name: String
        var body: String
        var apple_accepts: Bool
        var token: String
        var trial_days: Int?
    }

    /// A user id no store takes as it is: free text, longer than Play's 64 characters.
    static let user = "Ana Lima <ana.lima@example.com> signed up through the referral programme, 2026"

    static func exposure(_ id: String, user: String, arm: String, storeAccount: String) -> String {
        #"{"event_id":"\#(id)","type":"exposure","user_id":"\#(user)","experiment":"webhook-revenue","variant":"\#(arm)","ts":"\#(WebhookSupport.rfc3339(Int(Date().timeIntervalSince1970) - 10 * 86_400))","store_account_id":"\#(storeAccount)"}"#
    }

    /// user_id, type and trial_days of every stored event but exposures, as sqlite3 shows them.
    static func storedRows(_ server: InProcessServer) async throws -> [String] {
        try await server.query("SELECT user_id, type, trial_days FROM events WHERE type <> 1 ORDER BY ts, event_id").map { $0.joined(separator: "|") }
    }

    @Test func appStoreNotificationsLandOnTheUserWhoseExposureCarriedTheToken() async throws {
        let folder = TemporaryFolder()
        let known = UUID().uuidString.lowercased(), unknown = UUID().uuidString.lowercased()
        try await WebhookSupport.python([WebhookSupport.fixtures + "/appstore/store_accounts.py", folder.path, APIAppStoreWebhookTests.bundle, known, unknown])
        let cases = try JSONDecoder().decode([AppStoreCase].self, from: Data(contentsOf: URL(fileURLWithPath: folder.path + "/cases.json")))
        #expect(cases.count == 3 && cases.allSatisfy(\.apple_accepts), "\(cases.map { ($0.name, $0.apple_accepts) })")
        let root = [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder.path + "/root.pem")))
        let server = try InProcessServer(options: {
            $0.appStore = AppStoreOptions(verifier: try AppStoreJWSVerifier(roots: [root]), bundleID: APIAppStoreWebhookTests.bundle, environment: "Sandbox")
        }, experiments: WebhookSupport.addExperiment)
        // Swift's `UUID().uuidString` is upper case, Apple's token lower case: one account.
        let posted = await server.request("POST", "/v1/events", body: Self.exposure("x1", user: Self.user, arm: "trial-3d", storeAccount: known.uppercased()))
        #expect(posted.status == 200 && posted.json?["stored"] as? Int == 1, "\(posted.text)")
        for c in cases {
            let reply = await server.request("POST", "/v1/webhooks/appstore", headers: ["Content-Type": "application/json"], body: c.body)
            #expect(reply.status == 200 && reply.json?["status"] as? String == "stored", "\(c.name): \(reply.status) \(reply.text)")
        }
        let report = await server.request("GET", "/v1/experiments/webhook-revenue/report")
        let variants = try #require(report.json?["variants"] as? [[String: Any]], "\(report.text)")
        let arm = (variants.first { $0["key"] as? String == "trial-3d" }?["metrics"] as? [String: Any])?["trial_start_rate"] as? [String: Any]
        #expect(arm?["count"] as? Double == 1, "the trial counts in the user's arm: \(String(describing: arm))")
        // The arm tested 3 days; Apple granted 7 (an offer mismatch): 1 of its 1 trial start, counted and
        // noted, but one user is no evidence against 2% (exact binomial p = 0.02, not below 0.01): no warning.
        let offer = (report.json?["offer_mismatch"] as? [String: Any])?["trial-3d"] as? [String: Any]
        #expect(offer?["trial_days_differ"] as? Int == 1 && offer?["trial_starts"] as? Int == 1 && offer?["flagged"] as? Bool == false, "\(String(describing: offer))")
        let health = report.json?["health"] as? [[String: Any]] ?? []
        #expect(health.contains { $0["code"] as? String == "offer_mismatch" && $0["level"] as? String == "info" }, "\(health)")
        #expect(try await Self.storedRows(server) == ["\(Self.user)|2|7", "\(Self.user)|2|3", "\(unknown)|3|"])
        // The payment no exposure's token matched is counted, and becomes the user's once an exposure names it.
        let metrics = await server.request("GET", "/metrics").text
        #expect(metrics.contains("abctl_unmatched_store_payments_total 1\n"), "\(metrics)")
        let late = await server.request("POST", "/v1/events", body: Self.exposure("x1", user: "late-user", arm: "trial-3d", storeAccount: unknown.uppercased()))
        #expect(late.status == 200)
        let facts = try server.store.facts(experiment: "webhook-revenue")
        #expect(facts.contains { $0.userID == "late-user" && $0.paid }, "\(facts.map { ($0.userID, $0.paid) })")
    }

    @Test func googlePlayPurchasesLandOnTheUserWhoseExposureCarriedTheAccountID() async throws {
        let folder = TemporaryFolder()
        let now = Int(Date().timeIntervalSince1970)
        try await WebhookSupport.python([WebhookSupport.unitFixtures + "/googleplay/tokens.py", folder.path])
        try await WebhookSupport.python([WebhookSupport.fixtures + "/googleplay/pushes.py", folder.path,
                                         WebhookSupport.audience, WebhookSupport.account, WebhookSupport.package, String(now)])
        let pushes = try JSONDecoder().decode([WebhookSupport.Push].self, from: Data(contentsOf: URL(fileURLWithPath: folder.path + "/pushes.json")))
        let bearer = try #require(pushes.first?.token)
        let known = UUID().uuidString.lowercased(), unknown = "an-id-no-exposure-carried"
        let fake = try FakeGooglePlay(package: WebhookSupport.package)
        func purchase(_ account: String, trialDays: Int?) -> String {
            let start = WebhookSupport.rfc3339(now - 9 * 86_400), expiry = WebhookSupport.rfc3339(now - 9 * 86_400 + (trialDays ?? 365) * 86_400)
            let phase = trialDays == nil ? "basePrice" : "freeTrial"
            return #"{"kind":"androidpublisher#subscriptionPurchaseV2","startTime":"\#(start)","subscriptionState":"SUBSCRIPTION_STATE_ACTIVE","externalAccountIdentifiers":{"obfuscatedExternalAccountId":"\#(account)"},"lineItems":[{"productId":"chorus.plus.annual","expiryTime":"\#(expiry)","autoRenewingPlan":{"autoRenewEnabled":true,"recurringPrice":{"currencyCode":"USD","units":"59","nanos":990000000}},"offerPhase":{"\#(phase)":{}}}]}"#
        }
        fake.setPurchase("tok-known", json: purchase(known, trialDays: 7))
        fake.setPurchase("tok-unknown", json: purchase(unknown, trialDays: nil))
        func push(_ id: String, token: String) -> String {
            let data = Data(#"{"version":"1.0","packageName":"\#(WebhookSupport.package)","eventTimeMillis":"\#((now - 9 * 86_400) * 1000)","subscriptionNotification":{"version":"1.0","notificationType":4,"purchaseToken":"\#(token)","subscriptionId":"chorus.plus.annual"}}"#.utf8).base64EncodedString()
            return #"{"message":{"data":"\#(data)","messageId":"\#(id)","publishTime":"\#(WebhookSupport.rfc3339(now))"},"subscription":"projects/p/subscriptions/s"}"#
        }
        let server = try await WebhookSupport.googlePlayServer(folder, fake, experiments: WebhookSupport.addExperiment)
        let posted = await server.request("POST", "/v1/events", body: Self.exposure("x1", user: Self.user, arm: "trial-7d", storeAccount: known))
        #expect(posted.status == 200 && posted.json?["stored"] as? Int == 1, "\(posted.text)")
        for (id, token) in [("m-known", "tok-known"), ("m-unknown", "tok-unknown")] {
            let reply = await server.request("POST", "/v1/webhooks/googleplay", headers: ["Authorization": "Bearer " + bearer, "Content-Type": "application/json"],
                                                 body: push(id, token: token))
            #expect(reply.status == 200 && reply.json?["status"] as? String == "stored", "\(id): \(reply.status) \(reply.text)")
        }
        #expect(try await Self.storedRows(server) == ["\(Self.user)|2|7", "\(unknown)|3|"])
    }
}
