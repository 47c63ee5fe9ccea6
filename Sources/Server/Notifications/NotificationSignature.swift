import Webhooks

/// `Abctl-Signature: t=UNIX,v1=HEX`: the HMAC-SHA256 (libcrypto's) of `t.body` under
/// `ABCTL_NOTIFY_SECRET`, as Stripe signs its webhooks; a receiver recomputes it and compares.
public enum NotificationSignature {
    public static let header = "Abctl-Signature"

    /// The header's value for `body` sent at `timestamp` (seconds since 1970).
    public static func value(secret: [UInt8], timestamp: Int, body: [UInt8]) -> String {
        "t=\(timestamp),v1=" + hex(hmacSHA256(key: secret, data: Array("\(timestamp).".utf8) + body))
    }

    static func hmacSHA256(key: [UInt8], data: [UInt8]) -> [UInt8] { OpenSSL.hmacSHA256(key: key, data: data) }

    /// SHA-256 of `data`, for notification ids.
    static func sha256(_ data: [UInt8]) -> [UInt8] { OpenSSL.sha256(data) }

    static func hex(_ bytes: [UInt8]) -> String { String(decoding: OpenSSL.hex(bytes), as: UTF8.self) }
}
