import Foundation

/// How `abctl serve` runs the console: sessions, the cookie, the secret.
public struct ConsoleOptions: Sendable {
    /// Keys shorter than this cannot sign in to the console, whatever they may do through the API.
    public static let minimumKeyLength = 24
    /// `ABCTL_SESSION_SECRET` must hold at least this many bytes.
    public static let minimumSecretBytes = 32
    /// Failed sign-ins from one address within `throttleWindowSeconds` beyond which the next are 429.
    public static let allowedFailures = 10
    public static let throttleWindowSeconds: Int64 = 60

    /// `--session-hours`: a session ends this long after its sign-in.
    public var sessionHours: Int = 12
    /// `--console-insecure-cookie`: the cookie without `Secure` (plain HTTP on loopback only).
    public var insecureCookie = false
    /// `ABCTL_SESSION_SECRET`; nil: a secret generated once and kept in the store.
    public var sessionSecret: [UInt8]?
    /// The address people reach the console at (`https://abctl.example.com`): its origin is the
    /// one a POST's `Origin` must equal; nil: the request's `Host`.
    public var publicURL: String?
    /// The clock sessions and the throttle read.
    public var now: @Sendable () -> Date = { Date() }
    /// `--console-refresh-s`: an experiment's stored report is computed again after new events,
    /// at most this often.
    public var refreshSeconds: Double = 60
    /// `--trusted-proxy`, canonical: a request from this peer is counted under the client address
    /// its `X-Forwarded-For` names (ClientAddress); nil: every request under its peer.
    public var trustedProxy: String?

    public init() {}

    /// `--trusted-proxy ADDR` as the console compares it with a peer; refused unless an IP address.
    public static func trustedProxy(_ text: String) throws(APIKeys.ConfigurationError) -> String {
        guard let address = ClientAddress.canonical(text) else {
            throw APIKeys.ConfigurationError(description: "--trusted-proxy must be an IPv4 or IPv6 address, got '\(text)'")
        }
        return address
    }

    /// The secret of `ABCTL_SESSION_SECRET`, refused when shorter than `minimumSecretBytes`.
    public static func secret(environment text: String) throws(APIKeys.ConfigurationError) -> [UInt8] {
        let bytes = Array(text.utf8)
        guard bytes.count >= minimumSecretBytes else {
            throw APIKeys.ConfigurationError(description: "ABCTL_SESSION_SECRET must hold at least \(minimumSecretBytes) bytes; it holds \(bytes.count)")
        }
        return bytes
    }
}
