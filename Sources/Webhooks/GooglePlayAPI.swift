import ExperimentDefinitions
import Foundation
import Synchronization

/// How the Google Play lookups reach the network; the server passes the project's HTTP client.
public protocol HTTPTransport: Sendable {
    /// One request; throws when there is no answer (refused, timed out).
    func send(method: String, url: URL, headers: [(String, String)], body: [UInt8]?, timeout: Double) throws -> (status: Int, body: [UInt8])
}

/// A service-account key file as Google issues it (`{"type": "service_account",
/// "client_email", "private_key", "private_key_id", "token_uri", …}`).
public struct ServiceAccountKey: Sendable {
    public let clientEmail: String
    public let keyID: String?
    public let tokenURI: URL
    let privateKey: OpenSSL.PrivateKey

    public struct ConfigurationError: Error, CustomStringConvertible {
        public var description: String
    }

    public init(file: [UInt8]) throws(ConfigurationError) {
        guard let root = GooglePushVerifier.object(file) else { throw ConfigurationError(description: "the service-account key file is not a JSON object") }
        func text(_ key: String) -> String? {
            if case .string(let s)? = GooglePushVerifier.member(root, key), !s.isEmpty { return s }
            return nil
        }
        guard let email = text("client_email") else { throw ConfigurationError(description: "the key file has no 'client_email'") }
        guard let pem = text("private_key"), let key = OpenSSL.PrivateKey.pem(pem) else {
            throw ConfigurationError(description: "the key file's 'private_key' is not a PEM RSA private key")
        }
        guard let uri = text("token_uri"), let url = URL(string: uri), ["http", "https"].contains(url.scheme ?? "") else {
            throw ConfigurationError(description: "the key file has no http(s) 'token_uri'")
        }
        clientEmail = email
        keyID = text("private_key_id")
        tokenURI = url
        privateKey = key
    }

    /// The JWT-bearer grant's assertion (RFC 7523), signed RS256 with the key.
    func assertion(scope: String, now: Int64) -> String? {
        var header: [(String, JSONValue)] = [("alg", .string("RS256")), ("typ", .string("JWT"))]
        if let keyID { header.append(("kid", .string(keyID))) }
        let claims: JSONValue = .object([("iss", .string(clientEmail)), ("scope", .string(scope)), ("aud", .string(tokenURI.absoluteString)),
                                         ("iat", .number(Double(now))), ("exp", .number(Double(now + 3600)))])
        let input = Base64URL.encode(Array(JSONValue.object(header).serialized().utf8)) + "." + Base64URL.encode(Array(claims.serialized().utf8))
        guard let signature = OpenSSL.signRS256(Array(input.utf8), key: privateKey) else { return nil }
        return input + "." + Base64URL.encode(signature)
    }
}

/// Reads subscriptions with `purchases.subscriptionsv2.get`, authorized by an OAuth 2.0 token
/// from the service account (a JWT-bearer grant sent to the key file's `token_uri`), the token
/// kept until it expires (renewed a minute early, so none expires in flight).
public final class GooglePlayAPI: Sendable {
    public static let scope = "https://www.googleapis.com/auth/androidpublisher"

    public let baseURL: URL
    public let packageName: String
    public let timeout: Double
    let key: ServiceAccountKey
    let transport: any HTTPTransport
    private let token = Mutex<(value: String, expires: Int64)?>(nil)
    /// Tokens fetched so far (tests check the cache).
    private let grants = Atomic<Int>(0)

    public init(baseURL: URL, packageName: String, key: ServiceAccountKey, transport: any HTTPTransport, timeout: Double = 10) {
        self.baseURL = baseURL
        self.packageName = packageName
        self.key = key
        self.transport = transport
        self.timeout = timeout
    }

    public var tokensFetched: Int { grants.load(ordering: .relaxed) }

    /// The subscription purchase (`SubscriptionPurchaseV2`) for a token; `.unavailable` when
    /// Google cannot be asked or does not answer with one.
    public func subscription(purchaseToken: String, now: Int64) throws(WebhookError) -> [(String, JSONValue)] {
        let access = try accessToken(now: now)
        let path = "androidpublisher/v3/applications/\(Self.escape(packageName))/purchases/subscriptionsv2/tokens/\(Self.escape(purchaseToken))"
        let root = baseURL.absoluteString.hasSuffix("/") ? baseURL.absoluteString : baseURL.absoluteString + "/"
        guard let url = URL(string: root + path) else { throw Self.unavailable("cannot form the subscriptionsv2 URL") }
        let answer: (status: Int, body: [UInt8])
        do {
            answer = try transport.send(method: "GET", url: url, headers: [("Authorization", "Bearer " + access)], body: nil, timeout: timeout)
        } catch {
            throw Self.unavailable("purchases.subscriptionsv2.get failed: \(error)")
        }
        if answer.status == 401 { token.withLock { $0 = nil } }
        // A token Google does not know will never be known: acknowledged as ignored, not retried for a week.
        if answer.status == 404 { throw WebhookError(.unprocessable, code: Self.unknownTokenCode, "purchases.subscriptionsv2.get answered 404 for the purchase token") }
        guard answer.status == 200 else { throw Self.unavailable("purchases.subscriptionsv2.get answered HTTP \(answer.status)") }
        guard let purchase = GooglePushVerifier.object(answer.body) else { throw Self.unavailable("purchases.subscriptionsv2.get answered something that is not a JSON object") }
        return purchase
    }

    /// The cached token, or a new one from `token_uri`.
    func accessToken(now: Int64) throws(WebhookError) -> String {
        if let cached = token.withLock({ $0 }), cached.expires - 60 > now { return cached.value }
        guard let assertion = key.assertion(scope: Self.scope, now: now) else { throw Self.unavailable("cannot sign the service-account grant") }
        let form = "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=" + assertion
        let answer: (status: Int, body: [UInt8])
        do {
            answer = try transport.send(method: "POST", url: key.tokenURI, headers: [("Content-Type", "application/x-www-form-urlencoded")],
                                        body: Array(form.utf8), timeout: timeout)
        } catch {
            throw Self.unavailable("the OAuth token request to \(key.tokenURI.absoluteString) failed: \(error)")
        }
        grants.add(1, ordering: .relaxed)
        guard answer.status == 200, let body = GooglePushVerifier.object(answer.body),
              case .string(let value)? = GooglePushVerifier.member(body, "access_token"), !value.isEmpty else {
            throw Self.unavailable("the OAuth token endpoint answered HTTP \(answer.status) without an access_token")
        }
        var lifetime: Int64 = 3600
        if case .number(let seconds)? = GooglePushVerifier.member(body, "expires_in"), seconds.isFinite, seconds > 0, seconds < 1e9 { lifetime = Int64(seconds) }
        token.withLock { $0 = (value, now + lifetime) }
        return value
    }

    /// The code of the error a 404 for a purchase token throws.
    public static let unknownTokenCode = "unknown_purchase_token"

    static func unavailable(_ message: String) -> WebhookError {
        WebhookError(.unavailable, code: "googleplay_unavailable", message + "; nothing stored (Pub/Sub retries)")
    }

    /// A path segment, percent-encoded.
    static func escape(_ segment: String) -> String {
        segment.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? segment
    }
}
