import Foundation
import Testing
@testable import Webhooks

/// Pub/Sub push tokens judged first by google-auth (Fixtures/googleplay/tokens.py): abctl
/// accepts exactly the ones it accepts, with Google's keys in either published form.
struct GooglePushVerifierTests {
    struct Case: Decodable {
        var name: String
        var token: String
        var accepted: Bool
        var now: Int64
    }

    static let audience = "https://abctl.example.com/v1/webhooks/googleplay"
    static let account = "play-push@chorus-app.iam.gserviceaccount.com"

    static func fixture(_ name: String) throws -> Data {
        let url = try #require(Bundle.module.url(forResource: "Fixtures/googleplay/\(name)", withExtension: "json"))
        return try Data(contentsOf: url)
    }

    @Test(arguments: ["jwks", "certs"])
    func agreesWithGoogleAuthOnEveryToken(_ form: String) throws {
        let cases = try JSONDecoder().decode([Case].self, from: Self.fixture("tokens"))
        #expect(cases.count >= 20)
        #expect(cases.filter(\.accepted).count >= 5)
        let verifier = try GooglePushVerifier(certificates: Array(try Self.fixture(form)), audience: Self.audience, account: Self.account)
        #expect(verifier.keyIDs == ["k1", "k2"])
        for c in cases {
            var accepted = true
            do {
                try verifier.verify(authorization: "Bearer " + c.token, now: c.now)
            } catch {
                accepted = false
                #expect(error.kind == .unverified, "\(c.name): \(error)")
            }
            #expect(accepted == c.accepted, "\(c.name): abctl \(accepted ? "accepts" : "refuses"), google-auth \(c.accepted ? "accepts" : "refuses")")
        }
    }

    @Test func withoutABearerTokenNothingVerifies() throws {
        let verifier = try GooglePushVerifier(certificates: Array(try Self.fixture("jwks")), audience: Self.audience, account: Self.account)
        #expect(throws: WebhookError.self) { try verifier.verify(authorization: nil, now: 0) }
        let good = try #require(try JSONDecoder().decode([Case].self, from: Self.fixture("tokens")).first { $0.name == "good" })
        #expect(throws: WebhookError.self) { try verifier.verify(authorization: "Basic " + good.token, now: good.now) }
    }

    @Test func reloadReplacesTheKeysAndABadFileKeepsThem() throws {
        let verifier = try GooglePushVerifier(certificates: Array(try Self.fixture("jwks")), audience: Self.audience, account: Self.account)
        let good = try #require(try JSONDecoder().decode([Case].self, from: Self.fixture("tokens")).first { $0.name == "good" })
        #expect(throws: GooglePushVerifier.ConfigurationError.self) { try verifier.reload(certificates: Array("{}".utf8)) }
        try verifier.verify(authorization: "Bearer " + good.token, now: good.now)
        // Only k2 left: a token under k1 no longer verifies.
        let certs = try #require(try JSONSerialization.jsonObject(with: Self.fixture("certs")) as? [String: String])
        try verifier.reload(certificates: Array(try JSONSerialization.data(withJSONObject: ["k2": certs["k2"]!])))
        #expect(verifier.keyIDs == ["k2"])
        #expect(throws: WebhookError.self) { try verifier.verify(authorization: "Bearer " + good.token, now: good.now) }
    }
}
