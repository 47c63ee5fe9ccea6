import Events

extension ConsoleGate {
    /// A share link's days when none are given, and the most it may have.
    static let defaultShareDays = 14
    static let maximumShareDays = 90

    /// 40 lowercase hex digits: never the length of a session's id.
    static func isShareID(_ text: String) -> Bool {
        text.utf8.count == 40 && text.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }

    static func newShareID() -> String { String(decoding: Digest.hex(Digest.randomBytes(20)), as: UTF8.self) }

    /// Whether a share still shows its report: not revoked, not expired, and the key that made it
    /// still configured with `report` or `admin`.
    func isLive(_ share: ConsoleShare) throws -> Bool {
        guard share.revokedAt == nil, share.expiresAt > now else { return false }
        let secret = try secret()
        let kept = Array(share.keyHMAC.utf8)
        var live = false
        for holder in keys.holders where Digest.constantTimeEquals(Self.keyHMAC(holder.key, secret: secret), kept) {
            live = !holder.scopes.isDisjoint(with: [.report, .admin])
        }
        return live
    }
}
