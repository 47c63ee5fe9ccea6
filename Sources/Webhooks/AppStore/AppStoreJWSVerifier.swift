import COpenSSL
import ExperimentDefinitions
import Foundation

/// Verifies App Store signed data (JWS, compact form) as Apple's app-store-server-library does:
/// `alg` ES256; an `x5c` header of exactly three certificates whose leaf and intermediate chain
/// to a configured root at the payload's `signedDate` (X.509 strict mode, the time set on the
/// verification, not the clock); the leaf carries OID 1.2.840.113635.100.6.11.1 and the
/// intermediate 1.2.840.113635.100.6.2.1; the ES256 signature (raw r||s, turned into DER for
/// OpenSSL) checks with the leaf's P-256 key. The `x5c` root itself is not trusted: only the
/// configured roots are.
///
/// All cryptography is OpenSSL's (libcrypto). Holds an `X509_STORE` of the roots, which
/// OpenSSL locks internally, and OID objects that are only read after `init`: safe to share
/// across server threads, hence `@unchecked Sendable`.
public final class AppStoreJWSVerifier: @unchecked Sendable {
    public enum Failure: Error, Equatable, CustomStringConvertible {
        /// Not a JWS or not JSON: 400.
        case malformed(String)
        /// Well-formed but not signed by Apple's chain: 401.
        case unverified(String)

        public var description: String {
            switch self {
            case .malformed(let m), .unverified(let m): m
            }
        }
    }

    public struct ConfigurationError: Error, CustomStringConvertible {
        public var description: String
    }

    static let leafOID = "1.2.840.113635.100.6.11.1"
    static let intermediateOID = "1.2.840.113635.100.6.2.1"

    private let store: OpaquePointer
    private let leafObject: OpaquePointer
    private let intermediateObject: OpaquePointer

    /// `roots`: certificate files' contents, each PEM (one or more certificates) or DER.
    public init(roots: [[UInt8]]) throws(ConfigurationError) {
        guard let store = X509_STORE_new() else { throw ConfigurationError(description: "X509_STORE_new failed") }
        self.store = store
        leafObject = OBJ_txt2obj(Self.leafOID, 1)
        intermediateObject = OBJ_txt2obj(Self.intermediateOID, 1)
        var added = 0
        for file in roots {
            for cert in Self.certificates(in: file) {
                defer { X509_free(cert) }
                guard X509_STORE_add_cert(store, cert) == 1 else { throw ConfigurationError(description: "cannot add a root certificate: \(Self.openSSLError())") }
                added += 1
            }
        }
        guard added > 0 else { throw ConfigurationError(description: "no certificate found in the root CA files (PEM or DER)") }
    }

    deinit {
        X509_STORE_free(store)
        ASN1_OBJECT_free(leafObject)
        ASN1_OBJECT_free(intermediateObject)
    }

    /// The verified payload (a JSON object).
    public func verify(_ jws: String) throws(Failure) -> [(String, JSONValue)] {
        let parts = jws.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw .malformed("a JWS has three dot-separated parts, this has \(parts.count)") }
        guard let headerBytes = Self.base64URL(parts[0]), let header = Self.object(headerBytes) else {
            throw .malformed("the JWS header is not base64url-encoded JSON")
        }
        guard let payloadBytes = Self.base64URL(parts[1]), let payload = Self.object(payloadBytes) else {
            throw .malformed("the JWS payload is not base64url-encoded JSON")
        }
        guard let signature = Self.base64URL(parts[2]) else { throw .malformed("the JWS signature is not base64url") }
        guard case .string("ES256")? = Self.member(header, "alg") else { throw .unverified("the JWS algorithm is not ES256") }
        guard case .array(let x5c)? = Self.member(header, "x5c"), !x5c.isEmpty else { throw .unverified("the JWS header has no x5c certificate chain") }
        guard x5c.count == 3 else { throw .unverified("the x5c chain has \(x5c.count) certificates, not 3 (leaf, intermediate, root)") }
        let certificates: [[UInt8]] = try x5c.prefix(2).map { item throws(Failure) in
            guard case .string(let text) = item, let der = Data(base64Encoded: text) else { throw .unverified("an x5c certificate is not base64 DER") }
            return [UInt8](der)
        }
        // Apple checks the chain at signedDate (milliseconds), else now.
        var seconds = Int(Date().timeIntervalSince1970)
        if case .number(let ms)? = Self.member(payload, "signedDate") {
            guard ms.isFinite, abs(ms) < 1e15 else { throw .malformed("signedDate is out of range") }
            seconds = Int((ms / 1000).rounded(.down))
        }
        let key = try verifiedLeafKey(leaf: certificates[0], intermediate: certificates[1], at: seconds)
        defer { EVP_PKEY_free(key) }
        let signingInput = Array(jws.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
        try Self.checkSignature(signature, of: signingInput, key: key)
        return payload
    }

    /// Validates leaf → intermediate → a configured root at `seconds`, checks the two OIDs,
    /// and answers the leaf's public key (the caller frees it).
    private func verifiedLeafKey(leaf: [UInt8], intermediate: [UInt8], at seconds: Int) throws(Failure) -> OpaquePointer {
        guard let leafCert = Self.derCertificate(leaf), let intermediateCert = Self.derCertificate(intermediate) else {
            throw .unverified("an x5c certificate is not valid DER")
        }
        defer { X509_free(leafCert); X509_free(intermediateCert) }
        guard let untrusted = abctl_sk_X509_new_null() else { throw .unverified("out of memory") }
        defer { abctl_sk_X509_free(untrusted) }
        _ = abctl_sk_X509_push(untrusted, intermediateCert)
        guard let context = X509_STORE_CTX_new() else { throw .unverified("out of memory") }
        defer { X509_STORE_CTX_free(context) }
        guard X509_STORE_CTX_init(context, store, leafCert, untrusted) == 1 else { throw .unverified("cannot set up chain verification") }
        X509_STORE_CTX_set_flags(context, UInt(X509_V_FLAG_X509_STRICT))
        X509_STORE_CTX_set_time(context, 0, time_t(seconds))
        guard X509_verify_cert(context) == 1 else {
            let reason = String(cString: X509_verify_cert_error_string(Int(X509_STORE_CTX_get_error(context))))
            throw .unverified("the certificate chain does not verify at signedDate: \(reason)")
        }
        guard let chain = X509_STORE_CTX_get0_chain(context), abctl_sk_X509_num(chain) >= 2 else {
            throw .unverified("the verified chain is too short")
        }
        guard X509_get_ext_by_OBJ(abctl_sk_X509_value(chain, 0), leafObject, -1) >= 0 else {
            throw .unverified("the leaf certificate lacks OID \(Self.leafOID)")
        }
        guard X509_get_ext_by_OBJ(abctl_sk_X509_value(chain, 1), intermediateObject, -1) >= 0 else {
            throw .unverified("the intermediate certificate lacks OID \(Self.intermediateOID)")
        }
        guard let key = X509_get_pubkey(leafCert) else { throw .unverified("the leaf certificate has no usable public key") }
        return key
    }

    /// ES256: a P-256 key and a 64-byte r||s signature over SHA-256 of the signing input.
    private static func checkSignature(_ raw: [UInt8], of input: [UInt8], key: OpaquePointer) throws(Failure) {
        guard EVP_PKEY_get_base_id(key) == EVP_PKEY_EC else { throw .unverified("the leaf key is not an EC key") }
        var name = [CChar](repeating: 0, count: 64)
        var length = 0
        guard EVP_PKEY_get_group_name(key, &name, name.count, &length) == 1,
              String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self) == "prime256v1" else {
            throw .unverified("the leaf key is not on P-256")
        }
        guard raw.count == 64 else { throw .unverified("an ES256 signature has 64 bytes, this has \(raw.count)") }
        guard let der = derSignature(raw) else { throw .unverified("cannot encode the signature") }
        guard let digest = EVP_MD_CTX_new() else { throw .unverified("out of memory") }
        defer { EVP_MD_CTX_free(digest) }
        guard EVP_DigestVerifyInit(digest, nil, EVP_sha256(), nil, key) == 1,
              EVP_DigestVerify(digest, der, der.count, input, input.count) == 1 else {
            ERR_clear_error()
            throw .unverified("the signature does not match")
        }
    }

    /// r||s as a DER `ECDSA-Sig-Value`, the form OpenSSL verifies.
    static func derSignature(_ raw: [UInt8]) -> [UInt8]? {
        guard let sig = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(sig) }
        let r = BN_bin2bn(raw, 32, nil), s = raw.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress! + 32, 32, nil) }
        guard let r, let s else { BN_free(r); BN_free(s); return nil }
        guard ECDSA_SIG_set0(sig, r, s) == 1 else { BN_free(r); BN_free(s); return nil }
        let size = i2d_ECDSA_SIG(sig, nil)
        guard size > 0 else { return nil }
        var out = [UInt8](repeating: 0, count: Int(size))
        let written = out.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var p: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
            return i2d_ECDSA_SIG(sig, &p)
        }
        return written == size ? out : nil
    }

    static func derCertificate(_ der: [UInt8]) -> OpaquePointer? {
        der.withUnsafeBufferPointer { buffer in
            var p: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_X509(nil, &p, buffer.count)
        }
    }

    /// Every certificate in a PEM file, or the one DER certificate (the caller frees each).
    static func certificates(in file: [UInt8]) -> [OpaquePointer] {
        if file.starts(with: Array("-----BEGIN".utf8)) || String(decoding: file, as: UTF8.self).contains("-----BEGIN CERTIFICATE-----") {
            var out: [OpaquePointer] = []
            file.withUnsafeBytes { raw in
                guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return }
                defer { BIO_free(bio) }
                while let cert = PEM_read_bio_X509(bio, nil, nil, nil) { out.append(cert) }
            }
            ERR_clear_error()   // the end of the PEM reads as an error
            return out
        }
        return derCertificate(file).map { [$0] } ?? []
    }

    static func openSSLError() -> String {
        let code = ERR_get_error()
        guard code != 0 else { return "unknown OpenSSL error" }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// base64url without padding (padding is tolerated), as JWS uses it.
    static func base64URL(_ text: Substring) -> [UInt8]? {
        var s = String(text).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while s.utf8.count % 4 != 0 { s += "=" }
        return Data(base64Encoded: s).map { [UInt8]($0) }
    }

    static func object(_ bytes: [UInt8]) -> [(String, JSONValue)]? {
        guard let node = try? JSONReader.parse(bytes), case .object(let members) = node.value else { return nil }
        return members
    }

    static func member(_ members: [(String, JSONValue)], _ key: String) -> JSONValue? {
        members.last { $0.0 == key }?.1
    }
}
