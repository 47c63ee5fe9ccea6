import Webhooks

/// What keys and sessions need of libcrypto's digests (`OpenSSL`, shared with the webhooks):
/// SHA-256 in hexadecimal (a key's default name, the stylesheet's path), HMAC-SHA256 as text (a
/// key as a session keeps it, a form's token), and random bytes from the system's generator
/// (session ids, a generated secret).
enum Digest {
    /// SHA-256 of `data`, as lowercase hexadecimal.
    static func sha256Hex(_ data: [UInt8]) -> [UInt8] { OpenSSL.hex(OpenSSL.sha256(data)) }

    static func hmacSHA256(key: [UInt8], data: [UInt8]) -> [UInt8] { OpenSSL.hmacSHA256(key: key, data: data) }

    /// HMAC-SHA256 of `text` under `key`, as lowercase hexadecimal text.
    static func hmacHex(key: [UInt8], _ text: String) -> String {
        String(decoding: hex(hmacSHA256(key: key, data: Array(text.utf8))), as: UTF8.self)
    }

    /// Whether `a` and `b` are equal, in time that depends only on their lengths.
    static func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool { OpenSSL.constantTimeEquals(a, b) }

    /// `count` bytes from the system's cryptographic generator.
    static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    /// Lowercase hexadecimal.
    static func hex(_ bytes: [UInt8]) -> [UInt8] { OpenSSL.hex(bytes) }
}
