import COpenSSL

/// `Abctl-Signature: t=UNIX,v1=HEX`: the HMAC-SHA256 (libcrypto's) of `t.body` under
/// `ABCTL_NOTIFY_SECRET`, as Stripe signs its webhooks; a receiver recomputes it and compares.
public enum NotificationSignature {
    public static let header = "Abctl-Signature"

    /// The header's value for `body` sent at `timestamp` (seconds since 1970).
    public static func value(secret: [UInt8], timestamp: Int, body: [UInt8]) -> String {
        "t=\(timestamp),v1=" + hex(hmacSHA256(key: secret, data: Array("\(timestamp).".utf8) + body))
    }

    static func hmacSHA256(key: [UInt8], data: [UInt8]) -> [UInt8] {
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

    /// SHA-256 of `data` (libcrypto's), for notification ids.
    static func sha256(_ data: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let ok = data.withUnsafeBytes { d in EVP_Digest(d.baseAddress, d.count, &out, &length, EVP_sha256(), nil) }
        precondition(ok == 1, "SHA-256 failed")
        return Array(out.prefix(Int(length)))
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] })
    }
}
