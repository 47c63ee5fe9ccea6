import ExperimentDefinitions
import Foundation
import Server
import TestSupport
import Testing
@testable import Webhooks

/// `purchases.subscriptionsv2.get` through the project's HTTP client against a local fake of
/// Google's token endpoint and Play Developer API: the JWT-bearer grant, the token cache, and
/// every failure (refused, 5xx, 401, slow, not JSON) as `unavailable`, so the webhook answers 503.
@Suite(.timeLimit(.minutes(2)))
struct GooglePlayAPITests {
    static let package = "com.example.chorus"
    static let purchase = #"{"kind":"androidpublisher#subscriptionPurchaseV2","startTime":"2026-12-01T10:00:00Z","subscriptionState":"SUBSCRIPTION_STATE_ACTIVE","externalAccountIdentifiers":{"obfuscatedExternalAccountId":"u1"},"lineItems":[{"productId":"chorus.plus.annual","expiryTime":"2027-12-01T10:00:00Z","autoRenewingPlan":{"autoRenewEnabled":true,"recurringPrice":{"currencyCode":"EUR","units":"59","nanos":990000000}},"offerDetails":{"basePlanId":"annual"}}]}"#

    static func api(_ fake: FakeGooglePlay, pem: String, timeout: Double = 2) throws -> GooglePlayAPI {
        let key = try ServiceAccountKey(file: Array(fake.serviceAccountKey(privateKeyPEM: pem).utf8))
        return GooglePlayAPI(baseURL: URL(string: fake.apiURL)!, packageName: Self.package, key: key, transport: URLSessionTransport(), timeout: timeout)
    }

    @Test func readsAPurchaseWithACachedServiceAccountToken() async throws {
        let fake = try FakeGooglePlay(package: Self.package, tokenLifetime: 3599)
        let pem = try await FakeGooglePlay.makePrivateKeyPEM()
        fake.setPurchase("tok-1", json: Self.purchase)
        fake.setPurchase("tok/2", json: Self.purchase)
        let api = try Self.api(fake, pem: pem)
        let now: Int64 = 1_764_590_400
        let first = try api.subscription(purchaseToken: "tok-1", now: now)
        #expect(GooglePlayMapping.accountID(first) == "u1")
        _ = try api.subscription(purchaseToken: "tok/2", now: now + 3000)
        #expect(fake.tokensIssued == 1, "the token is reused until it nears expiry")
        _ = try api.subscription(purchaseToken: "tok-1", now: now + 3559)
        #expect(fake.tokensIssued == 2, "a minute before expiry a new one is fetched")

        // The grant: a JWT-bearer assertion signed RS256 by the key, for the androidpublisher scope.
        let grant = try #require(fake.requests.first { $0.path == "/token" })
        let form = String(decoding: grant.body, as: UTF8.self)
        let assertion = String(try #require(form.split(separator: "&").first { $0.hasPrefix("assertion=") }).dropFirst("assertion=".count))
        let parts = assertion.split(separator: ".")
        #expect(parts.count == 3)
        let claimBytes = try #require(Base64URL.decode(parts[1]))
        let claims = try #require(try JSONSerialization.jsonObject(with: Data(claimBytes)) as? [String: Any])
        #expect(claims["iss"] as? String == "abctl-reader@chorus-app.iam.gserviceaccount.com")
        #expect(claims["aud"] as? String == fake.tokenURI)
        #expect(claims["scope"] as? String == GooglePlayAPI.scope)
        #expect(claims["exp"] as? Double == (claims["iat"] as? Double).map { $0 + 3600 })
        let publicPEM = try await ChildProcess.run("/usr/bin/openssl", ["pkey", "-pubout"], stdin: pem).stdout
        let publicKey = try #require(OpenSSL.PublicKey.pem(publicPEM))
        let signature = try #require(Base64URL.decode(parts[2]))
        #expect(OpenSSL.verifyRS256(signature: signature, of: Array("\(parts[0]).\(parts[1])".utf8), key: publicKey))
        // The API call carried the token and the escaped purchase token.
        #expect(fake.requests.contains { $0.path.hasSuffix("/tokens/tok%2F2") && $0.headers["authorization"] == "Bearer ya29.fake-1" })
    }

    /// Failures that may pass are unavailable (the notification is retried); a token the Play API does not
    /// know (404) never will, and is unprocessable with its own code (answered 200 ignored).
    @Test func everyFailureIsUnavailable() async throws {
        let fake = try FakeGooglePlay(package: Self.package)
        let pem = try await FakeGooglePlay.makePrivateKeyPEM()
        fake.setPurchase("server-error", .status(500))
        fake.setPurchase("garbage", .garbage)
        fake.setPurchase("slow", .delayed(milliseconds: 3000, .json(200, Self.purchase)))
        let api = try Self.api(fake, pem: pem, timeout: 1)
        do { _ = try api.subscription(purchaseToken: "unknown", now: 1_764_590_400); Issue.record("an unknown token answered") } catch {
            #expect(error.kind == .unprocessable && error.code == GooglePlayAPI.unknownTokenCode, "\(error)")
        }
        for token in ["server-error", "garbage", "slow"] {
            let started = Date()
            #expect(throws: WebhookError.self, "\(token)") { try api.subscription(purchaseToken: token, now: 1_764_590_400) }
            do { _ = try api.subscription(purchaseToken: token, now: 1_764_590_400) } catch { #expect(error.kind == .unavailable, "\(token): \(error)") }
            if token == "slow" { #expect(Date().timeIntervalSince(started) < 2.9, "a slow answer is given up at the timeout") }
        }
        // The token endpoint failing, and nothing listening.
        let refused = try FakeGooglePlay(package: Self.package)
        refused.setTokenAnswer(.json(400, #"{"error":"invalid_grant"}"#))
        #expect(throws: WebhookError.self) { try Self.api(refused, pem: pem).subscription(purchaseToken: "x", now: 1_764_590_400) }
        let gone = try FakeGooglePlay(package: Self.package)
        let goneAPI = try Self.api(gone, pem: pem)
        gone.server.stop()
        usleep(50_000)
        #expect(throws: WebhookError.self) { try goneAPI.subscription(purchaseToken: "x", now: 1_764_590_400) }
    }
}
