import ExperimentDefinitions
import Foundation
import Synchronization

/// Verifies the OIDC token a Cloud Pub/Sub push carries (`Authorization: Bearer JWT`) as
/// google-auth's `google.auth.jwt.decode` does with no clock leeway, plus the claims Google
/// documents for push authentication:
///
/// - three dot-separated base64url parts, header and payload JSON objects;
/// - `alg` RS256; a `kid` must name a key of the set (without one every key is tried); the
///   RSASSA-PKCS1-v1_5 SHA-256 signature checks (OpenSSL);
/// - `iat` and `exp` present, `iat` <= now <= `exp` (whole seconds);
/// - `aud` equal to the configured audience (a string, not a list);
/// - `iss` `https://accounts.google.com` or `accounts.google.com`, `email` equal to the push
///   service account, `email_verified` true.
///
/// The keys come from `--google-certs` (either form Google publishes: a JSON Web Key Set, or a
/// map of key id to PEM certificate) and are replaced by `reload` (SIGHUP) without a gap.
public final class GooglePushVerifier: Sendable {
    public let audience: String
    public let account: String
    private let keys: Mutex<[String: OpenSSL.PublicKey]>

    public struct ConfigurationError: Error, CustomStringConvertible {
        public var description: String

        public init(description: String) {
            self.description = description
        }
    }

    public init(certificates: [UInt8], audience: String, account: String) throws(ConfigurationError) {
        self.audience = audience
        self.account = account
        keys = Mutex(try Self.parseKeys(certificates))
    }

    /// Replaces the keys with a file's; on an error the old keys stay.
    public func reload(certificates: [UInt8]) throws(ConfigurationError) {
        let fresh = try Self.parseKeys(certificates)
        keys.withLock { $0 = fresh }
    }

    public var keyIDs: [String] { keys.withLock { Array($0.keys).sorted() } }

    /// The verified claims, or `.unverified` (401).
    @discardableResult
    public func verify(authorization: String?, now: Int64) throws(WebhookError) -> [(String, JSONValue)] {
        guard let authorization, authorization.hasPrefix("Bearer ") else {
            throw .unverified("no 'Authorization: Bearer' token: Pub/Sub push authentication must be on", field: "Authorization")
        }
        let token = authorization.dropFirst("Bearer ".count)
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw .unverified("the token has \(parts.count) parts, not 3", field: "Authorization") }
        guard let headerBytes = Base64URL.decode(parts[0]), let header = Self.object(headerBytes),
              let payloadBytes = Base64URL.decode(parts[1]), let claims = Self.object(payloadBytes),
              let signature = Base64URL.decode(parts[2]) else {
            throw .unverified("the token's parts are not base64url JSON objects", field: "Authorization")
        }
        guard case .string("RS256")? = Self.member(header, "alg") else { throw .unverified("the token's algorithm is not RS256", field: "Authorization") }
        let candidates: [OpenSSL.PublicKey]
        switch Self.member(header, "kid") {
        case .string(let kid)? where !kid.isEmpty:
            guard let key = keys.withLock({ $0[kid] }) else { throw .unverified("no Google key has id '\(kid)' (see --google-certs)", field: "Authorization") }
            candidates = [key]
        case nil, .null?, .string?:
            candidates = keys.withLock { Array($0.values) }
        default:
            throw .unverified("the token's key id is not a string", field: "Authorization")
        }
        let input = Array(token.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
        guard candidates.contains(where: { OpenSSL.verifyRS256(signature: signature, of: input, key: $0) }) else {
            throw .unverified("the token's signature does not check with Google's keys", field: "Authorization")
        }
        guard case .number(let iat)? = Self.member(claims, "iat"), case .number(let exp)? = Self.member(claims, "exp") else {
            throw .unverified("the token lacks a numeric 'iat' or 'exp'", field: "Authorization")
        }
        let seconds = Double(now)
        guard seconds >= iat else { throw .unverified("the token was issued in the future", field: "Authorization") }
        guard seconds <= exp else { throw .unverified("the token has expired", field: "Authorization") }
        guard case .string(audience)? = Self.member(claims, "aud") else {
            throw .unverified("the token's audience is not '\(audience)' (see --googleplay-audience)", field: "Authorization")
        }
        guard case .string(let issuer)? = Self.member(claims, "iss"), issuer == "https://accounts.google.com" || issuer == "accounts.google.com" else {
            throw .unverified("the token was not issued by accounts.google.com", field: "Authorization")
        }
        guard case .string(account)? = Self.member(claims, "email") else {
            throw .unverified("the token is not for the push service account '\(account)' (see --googleplay-push-account)", field: "Authorization")
        }
        guard case .bool(true)? = Self.member(claims, "email_verified") else {
            throw .unverified("the token's email is not verified", field: "Authorization")
        }
        return claims
    }

    /// A JSON Web Key Set (`{"keys": [{"kid", "kty": "RSA", "n", "e"}]}`) or a map of key id to
    /// PEM certificate, as Google publishes its keys at googleapis.com/oauth2/v3/certs and /v1/certs.
    static func parseKeys(_ file: [UInt8]) throws(ConfigurationError) -> [String: OpenSSL.PublicKey] {
        guard let root = object(file) else { throw ConfigurationError(description: "the certificates file is not a JSON object (a JWKS or a map of key id to PEM)") }
        var out: [String: OpenSSL.PublicKey] = [:]
        if case .array(let jwks)? = member(root, "keys") {
            for item in jwks {
                guard case .object(let jwk) = item, case .string(let kid)? = member(jwk, "kid") else {
                    throw ConfigurationError(description: "a key of the set has no 'kid'")
                }
                guard case .string("RSA")? = member(jwk, "kty"), case .string(let n)? = member(jwk, "n"), case .string(let e)? = member(jwk, "e"),
                      let modulus = Base64URL.decode(n), let exponent = Base64URL.decode(e),
                      let key = OpenSSL.PublicKey.rsa(modulus: modulus, exponent: exponent) else {
                    throw ConfigurationError(description: "key '\(kid)' is not an RSA JSON Web Key with 'n' and 'e'")
                }
                out[kid] = key
            }
        } else {
            for (kid, value) in root {
                guard case .string(let pem) = value, let key = OpenSSL.PublicKey.pem(pem) else {
                    throw ConfigurationError(description: "key '\(kid)' is not a PEM certificate with an RSA key")
                }
                out[kid] = key
            }
        }
        guard !out.isEmpty else { throw ConfigurationError(description: "the certificates file holds no key") }
        return out
    }

    static func object(_ bytes: [UInt8]) -> [(String, JSONValue)]? {
        guard let node = try? JSONReader.parse(bytes), case .object(let members) = node.value else { return nil }
        return members
    }

    static func member(_ members: [(String, JSONValue)], _ key: String) -> JSONValue? {
        members.last { $0.0 == key }?.1
    }
}
