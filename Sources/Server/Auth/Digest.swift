import COpenSSL

/// The digests keys and sessions need, all of them libcrypto's: SHA-256 (a key's default name,
/// the stylesheet's path), HMAC-SHA256 (a key as a session keeps it, a form's token), and random
/// bytes from the system's generator (session ids, a generated secret).
enum Digest {
    /// SHA-256 of `data`, as lowercase hexadecimal.
    static func sha256Hex(_ data: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let ok = data.withUnsafeBytes { d in EVP_Digest(d.baseAddress, d.count, &out, &length, EVP_sha256(), nil) }
        precondition(ok == 1, "SHA-256 failed")
        return hex(Array(out.prefix(Int(length))))
    }

    /// HMAC-SHA256 of `data` under `key`.
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

    /// HMAC-SHA256 of `text` under `key`, as lowercase hexadecimal text.
    static func hmacHex(key: [UInt8], _ text: String) -> String {
        String(decoding: hex(hmacSHA256(key: key, data: Array(text.utf8))), as: UTF8.self)
    }

    /// Whether `a` and `b` are equal, in time that depends only on their lengths.
    static func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        if a.isEmpty { return true }
        return CRYPTO_memcmp(a, b, a.count) == 0
    }

    /// `count` bytes from the system's cryptographic generator.
    static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    /// Lowercase hexadecimal.
    static func hex(_ bytes: [UInt8]) -> [UInt8] {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 15)])
        }
        return out
    }
}
