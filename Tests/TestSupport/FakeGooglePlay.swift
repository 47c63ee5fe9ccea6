import Foundation
import Synchronization

/// Google's OAuth token endpoint and the Play Developer API's `purchases.subscriptionsv2.get`
/// on 127.0.0.1, answering in Google's documented shapes, for tests of the Google Play webhook.
///
/// `POST /token` takes a JWT-bearer grant (form `grant_type`, `assertion`) and answers
/// `{"access_token", "expires_in", "token_type"}`; `GET /androidpublisher/v3/applications/{package}
/// /purchases/subscriptionsv2/tokens/{token}` wants a token it issued and answers the purchase
/// set for that purchase token (404 for an unknown one, or any scripted failure or delay).
public final class FakeGooglePlay: Sendable {
    public let server: FakeChatServer
    private let state: State

    final class State: Sendable {
        let purchases = Mutex<[String: FakeChatServer.Answer]>([:])
        let issued = Mutex<[String]>([])
        let tokenAnswer = Mutex<FakeChatServer.Answer?>(nil)
        let lifetime: Int
        init(lifetime: Int) { self.lifetime = lifetime }
    }

    /// `tokenLifetime`: the `expires_in` the token endpoint answers.
    public init(package: String, tokenLifetime: Int = 3599) throws {
        let state = State(lifetime: tokenLifetime)
        self.state = state
        let prefix = "/androidpublisher/v3/applications/\(package)/purchases/subscriptionsv2/tokens/"
        server = try FakeChatServer { request in
            if request.method == "POST" && request.path == "/token" {
                if let scripted = state.tokenAnswer.withLock({ $0 }) { return scripted }
                let form = String(decoding: request.body, as: UTF8.self)
                guard form.contains("grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer"), form.contains("&assertion=") else {
                    return .json(400, #"{"error":"invalid_grant","error_description":"not a JWT-bearer grant"}"#)
                }
                let token = state.issued.withLock { issued in
                    issued.append("ya29.fake-\(issued.count + 1)")
                    return issued.last!
                }
                return .json(200, #"{"access_token":"\#(token)","expires_in":\#(state.lifetime),"token_type":"Bearer"}"#)
            }
            guard request.method == "GET", request.path.hasPrefix(prefix) else { return .json(404, #"{"error":{"code":404,"message":"Not found","status":"NOT_FOUND"}}"#) }
            let bearer = request.headers["authorization"] ?? ""
            guard bearer.hasPrefix("Bearer "), state.issued.withLock({ $0.contains(String(bearer.dropFirst(7))) }) else {
                return .json(401, #"{"error":{"code":401,"message":"Request had invalid authentication credentials.","status":"UNAUTHENTICATED"}}"#)
            }
            let purchaseToken = String(request.path.dropFirst(prefix.count)).removingPercentEncoding ?? ""
            return state.purchases.withLock { $0[purchaseToken] }
                ?? .json(404, #"{"error":{"code":404,"message":"The purchase token was not found.","status":"NOT_FOUND"}}"#)
        }
    }

    /// The Play API root (`--googleplay-api-url`).
    public var apiURL: String { server.url }

    /// The token endpoint (a key file's `token_uri`).
    public var tokenURI: String { server.url + "/token" }

    /// What `subscriptionsv2.get` answers for `purchaseToken`: the purchase (200), or a failure.
    public func setPurchase(_ purchaseToken: String, _ answer: FakeChatServer.Answer) {
        state.purchases.withLock { $0[purchaseToken] = answer }
    }

    public func setPurchase(_ purchaseToken: String, json: String) {
        setPurchase(purchaseToken, .json(200, json))
    }

    /// A scripted answer of the token endpoint for every later grant (nil: grants succeed).
    public func setTokenAnswer(_ answer: FakeChatServer.Answer?) {
        state.tokenAnswer.withLock { $0 = answer }
    }

    /// Access tokens issued so far.
    public var tokensIssued: Int { state.issued.withLock { $0.count } }

    /// The requests so far, in order.
    public var requests: [FakeChatServer.Request] { server.requests }

    /// A service-account key file (JSON) for `privateKeyPEM`, whose `token_uri` is this fake.
    public func serviceAccountKey(privateKeyPEM: String, email: String = "abctl-reader@chorus-app.iam.gserviceaccount.com") -> String {
        let object: [String: String] = ["type": "service_account", "project_id": "chorus-app", "private_key_id": "fakekey1",
                                        "private_key": privateKeyPEM, "client_email": email, "client_id": "1",
                                        "token_uri": tokenURI]
        return String(decoding: (try? JSONSerialization.data(withJSONObject: object)) ?? Data(), as: UTF8.self)
    }

    /// A fresh RSA private key, PEM (PKCS #8), made by the openssl command.
    public static func makePrivateKeyPEM() throws -> String {
        let run = try AbctlBinary.run(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"], executable: "/usr/bin/openssl")
        guard run.status == 0, run.stdout.contains("BEGIN PRIVATE KEY") else { throw FakeChatServer.Failure(description: "openssl genpkey: \(run.stderr)") }
        return run.stdout
    }
}
