import COpenSSL
import Foundation

/// The cryptography the webhooks need, all of it libcrypto's: HMAC-SHA256 (Stripe), constant-
/// time comparison, RS256 verification and signing (Google's tokens, the service-account grant).
/// The digests are public: the server's keys, console sessions and notification signatures use
/// these same ones.
public enum OpenSSL {
    /// SHA-256 of `data`.
    public static func sha256(_ data: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let ok = data.withUnsafeBytes { d in EVP_Digest(d.baseAddress, d.count, &out, &length, EVP_sha256(), nil) }
        precondition(ok == 1, "SHA-256 failed")
        return Array(out.prefix(Int(length)))
    }

    /// HMAC-SHA256 of `data` under `key`.
    public static func hmacSHA256(key: [UInt8], data: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let ok = key.withUnsafeBytes { k in
            data.withUnsafeBytes { d in
                HMAC(EVP_sha256(), k.baseAddress, Int32(k.count), d.bindMemory(to: UInt8.self).baseAddress, d.count, &out, &length)
            }
        }
        precondition(ok != nil, "HMAC-SHA256 failed")
        return Array(out.prefix(Int(length)))
    }

    /// Whether `a` and `b` are equal, in time that depends only on their lengths.
    public static func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        if a.isEmpty { return true }
        return CRYPTO_memcmp(a, b, a.count) == 0
    }

    /// Lowercase hexadecimal.
    public static func hex(_ bytes: [UInt8]) -> [UInt8] {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 15)])
        }
        return out
    }

    /// Whether an RS256 signature (RSASSA-PKCS1-v1_5 with SHA-256) of `input` checks with `key`.
    static func verifyRS256(signature: [UInt8], of input: [UInt8], key: PublicKey) -> Bool {
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        var pkeyContext: OpaquePointer?
        guard EVP_DigestVerifyInit(context, &pkeyContext, EVP_sha256(), nil, key.pointer) == 1,
              EVP_PKEY_CTX_set_rsa_padding(pkeyContext, RSA_PKCS1_PADDING) == 1 else {
            ERR_clear_error()
            return false
        }
        let ok = EVP_DigestVerify(context, signature, signature.count, input, input.count) == 1
        ERR_clear_error()
        return ok
    }

    /// An RS256 signature of `input` with a private key.
    static func signRS256(_ input: [UInt8], key: PrivateKey) -> [UInt8]? {
        guard let context = EVP_MD_CTX_new() else { return nil }
        defer { EVP_MD_CTX_free(context) }
        var pkeyContext: OpaquePointer?
        guard EVP_DigestSignInit(context, &pkeyContext, EVP_sha256(), nil, key.pointer) == 1,
              EVP_PKEY_CTX_set_rsa_padding(pkeyContext, RSA_PKCS1_PADDING) == 1 else { ERR_clear_error(); return nil }
        var length = 0
        guard EVP_DigestSign(context, nil, &length, input, input.count) == 1 else { ERR_clear_error(); return nil }
        var out = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSign(context, &out, &length, input, input.count) == 1 else { ERR_clear_error(); return nil }
        return Array(out.prefix(length))
    }

    /// An RSA public key (an `EVP_PKEY`), freed with its holder. Only read after init: shared
    /// across server threads, hence `@unchecked Sendable`.
    final class PublicKey: @unchecked Sendable {
        let pointer: OpaquePointer

        private init(_ pointer: OpaquePointer) { self.pointer = pointer }

        deinit { EVP_PKEY_free(pointer) }

        /// From a PEM certificate (Google's kid → certificate map) or PEM public key.
        static func pem(_ text: String) -> PublicKey? {
            withPEMReader(text) { bio -> PublicKey? in
                if text.contains("BEGIN CERTIFICATE") {
                    guard let cert = PEM_read_bio_X509(bio, nil, nil, nil) else { return nil }
                    defer { X509_free(cert) }
                    return rsa(X509_get_pubkey(cert))
                }
                return rsa(PEM_read_bio_PUBKEY(bio, nil, nil, nil))
            }
        }

        /// From a JSON Web Key's modulus and exponent (big-endian bytes).
        static func rsa(modulus: [UInt8], exponent: [UInt8]) -> PublicKey? {
            guard !modulus.isEmpty, !exponent.isEmpty, let builder = OSSL_PARAM_BLD_new() else { return nil }
            defer { OSSL_PARAM_BLD_free(builder) }
            let n = BN_bin2bn(modulus, Int32(modulus.count), nil), e = BN_bin2bn(exponent, Int32(exponent.count), nil)
            defer { BN_free(n); BN_free(e) }
            guard let n, let e, OSSL_PARAM_BLD_push_BN(builder, abctl_OSSL_PKEY_PARAM_RSA_N(), n) == 1,
                  OSSL_PARAM_BLD_push_BN(builder, abctl_OSSL_PKEY_PARAM_RSA_E(), e) == 1,
                  let params = OSSL_PARAM_BLD_to_param(builder) else { return nil }
            defer { OSSL_PARAM_free(params) }
            guard let context = EVP_PKEY_CTX_new_from_name(nil, "RSA", nil) else { return nil }
            defer { EVP_PKEY_CTX_free(context) }
            var key: OpaquePointer?
            guard EVP_PKEY_fromdata_init(context) == 1,
                  EVP_PKEY_fromdata(context, &key, abctl_EVP_PKEY_PUBLIC_KEY(), params) == 1 else { ERR_clear_error(); return nil }
            return rsa(key)
        }

        /// Keeps `key` only if it is RSA (frees it otherwise).
        private static func rsa(_ key: OpaquePointer?) -> PublicKey? {
            guard let key else { return nil }
            guard EVP_PKEY_is_a(key, "RSA") == 1 else { EVP_PKEY_free(key); return nil }
            return PublicKey(key)
        }
    }

    /// An RSA private key (the service account's), freed with its holder; only read after init.
    final class PrivateKey: @unchecked Sendable {
        let pointer: OpaquePointer

        private init(_ pointer: OpaquePointer) { self.pointer = pointer }

        deinit { EVP_PKEY_free(pointer) }

        /// From PEM (PKCS #8 `BEGIN PRIVATE KEY`, as Google's key files hold, or PKCS #1).
        static func pem(_ text: String) -> PrivateKey? {
            withPEMReader(text) { bio -> PrivateKey? in
                guard let key = PEM_read_bio_PrivateKey(bio, nil, nil, nil) else { return nil }
                guard EVP_PKEY_is_a(key, "RSA") == 1 else { EVP_PKEY_free(key); return nil }
                return PrivateKey(key)
            }
        }
    }
}

/// Runs `read` on a memory BIO over `text` (PEM), freeing the BIO and clearing OpenSSL's error
/// queue afterwards, so a failed read leaves nothing behind for the next call on this thread.
private func withPEMReader<T>(_ text: String, _ read: (OpaquePointer) -> T?) -> T? {
    Array(text.utf8).withUnsafeBytes { raw -> T? in
        guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
        defer { BIO_free(bio); ERR_clear_error() }
        return read(bio)
    }
}

/// base64url (RFC 4648 §5), as JWTs use it.
enum Base64URL {
    /// Decodes without padding; padding and any other character are refused, as JWTs never carry them.
    static func decode<S: StringProtocol>(_ text: S) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for c in text.utf8 {
            let value: UInt8
            switch c {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = c - UInt8(ascii: "A")
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = c - UInt8(ascii: "a") + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = c - UInt8(ascii: "0") + 52
            case UInt8(ascii: "-"): value = 62
            case UInt8(ascii: "_"): value = 63
            default: return nil
            }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        // A lone sixth of a byte cannot end a base64 text.
        if bits >= 6 { return nil }
        return out
    }

    static func encode(_ bytes: [UInt8]) -> String {
        var s = Data(bytes).base64EncodedString()
        while s.hasSuffix("=") { s.removeLast() }
        return s.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
    }
}
