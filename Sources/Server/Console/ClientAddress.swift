#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The client's address as the console counts failed sign-ins under it: the peer's, or, when the
/// peer is the proxy `--trusted-proxy` names, the one it forwarded.
///
/// The rule for `X-Forwarded-For` is the rightmost address that is not the trusted proxy: each
/// proxy appends the address it received the request from, so the rightmost entry is the one our
/// proxy wrote, while everything to its left came with the request and anyone can write it. Taking
/// the leftmost would let a client pick the address it is throttled under.
enum ClientAddress {
    static let forwardedForHeader = "X-Forwarded-For"

    /// `text` as one canonical spelling: IPv4 dotted (`192.0.2.1`), IPv6 as its eight groups of
    /// hex digits without leading zeros (`2001:db8:0:0:0:0:0:1`, as the transport spells a peer), an
    /// IPv4-mapped IPv6 address as its IPv4 address. Brackets and a port (`[::1]:443`,
    /// `192.0.2.1:80`) are dropped. nil for anything that is not an IP address.
    static func canonical(_ text: String) -> String? {
        var s = Substring(text.trimmingSpaces())
        if s.hasPrefix("[") {
            guard let close = s.firstIndex(of: "]") else { return nil }
            s = s[s.index(after: s.startIndex)..<close]
        } else if s.filter({ $0 == ":" }).count == 1, let colon = s.firstIndex(of: ":") {
            s = s[..<colon]
        }
        let address = String(s)
        var v4 = in_addr()
        if inet_pton(AF_INET, address, &v4) == 1 { return dotted(UInt32(bigEndian: v4.s_addr)) }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, address, &v6) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: &v6) { Array($0) }
        if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
            return dotted(UInt32(bytes[12]) << 24 | UInt32(bytes[13]) << 16 | UInt32(bytes[14]) << 8 | UInt32(bytes[15]))
        }
        return stride(from: 0, to: 16, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }.joined(separator: ":")
    }

    private static func dotted(_ v: UInt32) -> String {
        [24, 16, 8, 0].map { String((v >> UInt32($0)) & 0xFF) }.joined(separator: ".")
    }

    /// The client of a request: with the peer being `trustedProxy` (canonical), the rightmost
    /// address of `forwardedFor` (every `X-Forwarded-For` line, in order) that is not the proxy;
    /// else, or when that entry is missing or not an address, the peer. nil when the peer is unknown.
    static func client(peer: String?, forwardedFor: [String], trustedProxy: String?) -> String? {
        guard let peer else { return nil }
        let canonicalPeer = canonical(peer) ?? peer
        guard let trustedProxy, canonicalPeer == trustedProxy else { return canonicalPeer }
        let hops = forwardedFor.flatMap { $0.split(separator: ",") }.map { canonical(String($0)) }
        for hop in hops.reversed() {
            guard let hop else { return canonicalPeer }
            if hop != trustedProxy { return hop }
        }
        return canonicalPeer
    }

    /// The key failed sign-ins are counted under: the address, an IPv6 one per /64
    /// (`2001:db8:1:2::/64`), since one subscriber usually holds a whole /64.
    static func throttleKey(_ address: String?) -> String {
        guard let address else { return "unknown" }
        guard address.contains(":") else { return address }
        return address.split(separator: ":", omittingEmptySubsequences: false).prefix(4).joined(separator: ":") + "::/64"
    }
}
