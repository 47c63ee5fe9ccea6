import Events
import Foundation
import HTTPTransport
import Synchronization

/// Who may use the console and how: the `Host` a server without keys answers, a
/// POST's `Origin`, sessions (sign-in, the check on each request against the keys as they are
/// now, sign-out), form tokens and the throttle on failed sign-ins. Keys are kept by sessions as
/// their HMACs under the server's secret and compared in constant time.
final class ConsoleGate: Sendable {
    private let keyRing: KeyRing
    let store: any ConsoleSessionStore & SafeguardStopStore
    let options: ConsoleOptions
    private let secretHeld = Mutex<[UInt8]?>(nil)

    /// The keys in force now (a reload may have removed one, ending its sessions).
    var keys: APIKeys { keyRing.current }

    init(keys: KeyRing, store: any ConsoleSessionStore & SafeguardStopStore, options: ConsoleOptions) {
        self.keyRing = keys
        self.store = store
        self.options = options
        if let given = options.sessionSecret { secretHeld.withLock { $0 = given } }
    }

    /// The server's secret: `ABCTL_SESSION_SECRET`, else the one kept in the store (generated
    /// by whichever node asked first).
    func secret() throws -> [UInt8] {
        if let held = secretHeld.withLock({ $0 }) { return held }
        let generated = String(decoding: Digest.hex(Digest.randomBytes(32)), as: UTF8.self)
        let kept = Array(try store.consoleSecret(name: "console_session", generated: generated).utf8)
        secretHeld.withLock { $0 = kept }
        return kept
    }

    var now: Int64 { Int64(options.now().timeIntervalSince1970.rounded(.down)) }

    // MARK: Host and Origin

    /// Whether the request may reach the console at all: with no keys, only through a loopback name.
    func hostAllowed(_ request: HTTPRequest) -> Bool {
        guard keys.isEmpty else { return true }
        return Self.isLoopback(host: request.header("Host"))
    }

    /// `localhost`, `127.x.x.x` or `[::1]`, with or without a port.
    static func isLoopback(host: String?) -> Bool {
        guard var host = host?.lowercased(), !host.isEmpty else { return false }
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return false }
            return host[host.index(after: host.startIndex)..<close] == "::1"
        }
        if let colon = host.lastIndex(of: ":") { host = String(host[..<colon]) }
        if host == "localhost" || host.hasSuffix(".localhost") { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }

    /// A POST's `Origin`: equal to the console's own (`publicURL`'s origin, else the request's
    /// `Host` over http or https); missing only with `Sec-Fetch-Site: same-origin`; never `null`.
    func originAllowed(_ request: HTTPRequest) -> Bool {
        guard let origin = request.header("Origin")?.trimmingSpaces() else {
            return request.header("Sec-Fetch-Site")?.trimmingSpaces().lowercased() == "same-origin"
        }
        if origin == "null" { return false }
        if let publicURL = options.publicURL { return origin.lowercased() == Self.origin(of: publicURL) }
        guard let host = request.header("Host")?.trimmingSpaces().lowercased(), !host.isEmpty else { return false }
        return origin.lowercased() == "http://" + host || origin.lowercased() == "https://" + host
    }

    /// `scheme://host[:port]` of a URL, lowercased.
    static func origin(of url: String) -> String {
        let lower = url.lowercased()
        guard let schemeEnd = lower.range(of: "://") else { return lower }
        let rest = lower[schemeEnd.upperBound...]
        let host = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        return String(lower[..<schemeEnd.upperBound]) + host
    }

    // MARK: Sessions

    /// The viewer of a request: anyone when the server has no keys; else the session its cookie
    /// names, when it exists, is neither revoked nor expired, and its key is still configured
    /// with `report` or `admin`. nil otherwise.
    func viewer(_ request: HTTPRequest) throws -> ConsoleViewer? {
        if keys.isEmpty { return ConsoleViewer(sessionID: nil, name: nil, scopes: [.admin], formToken: nil) }
        guard let id = ConsoleCookies.value(ConsoleCookies.session, in: request.header("Cookie")), Self.isSessionID(id),
              let session = try store.session(id: id), session.revokedAt == nil, session.expiresAt > now else { return nil }
        let secret = try secret()
        var found: APIKeys.Holder?
        let kept = Array(session.keyHMAC.utf8)
        for holder in keys.holders where Digest.constantTimeEquals(Self.keyHMAC(holder.key, secret: secret), kept) { found = holder }
        guard let holder = found, !holder.scopes.isDisjoint(with: [.report, .admin]) else { return nil }
        return ConsoleViewer(sessionID: id, name: holder.name, scopes: holder.scopes, formToken: try formToken(session: id), keyHMAC: session.keyHMAC)
    }

    /// 32 lowercase hex digits.
    static func isSessionID(_ text: String) -> Bool {
        text.utf8.count == 32 && text.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }

    static func keyHMAC(_ key: [UInt8], secret: [UInt8]) -> [UInt8] {
        Digest.hex(Digest.hmacSHA256(key: secret, data: Array("key:".utf8) + key))
    }

    /// The `form_token` of a session's forms: the HMAC of its id under the secret.
    func formToken(session id: String) throws -> String {
        Digest.hmacHex(key: try secret(), "form:" + id)
    }

    /// The sign-in form's token: the HMAC of the sign-in cookie's value.
    func signInToken(nonce: String) throws -> String {
        Digest.hmacHex(key: try secret(), "signin:" + nonce)
    }

    /// Whether `token` is `expected`, in constant time.
    static func tokenMatches(_ token: String?, _ expected: String) -> Bool {
        guard let token else { return false }
        return Digest.constantTimeEquals(Array(token.utf8), Array(expected.utf8))
    }

    enum SignIn {
        case signedIn(ConsoleSession)
        /// The key cannot sign in; the words say why, without saying whether it exists.
        case refused(String)
        /// Too many failed sign-ins from the address: not checked.
        case throttled
    }

    /// Signs in with `key` from `address`: a new session for a configured key of at least
    /// `minimumKeyLength` characters with `report` or `admin`; a failure is counted for the address.
    func signIn(key: String, address: String) throws -> SignIn {
        let now = self.now
        if try store.failedSignIns(address: address, since: now - ConsoleOptions.throttleWindowSeconds + 1) >= ConsoleOptions.allowedFailures {
            return .throttled
        }
        let holder = keys.holder(key: key)
        guard key.utf8.count >= ConsoleOptions.minimumKeyLength, let holder, !holder.scopes.isDisjoint(with: [.report, .admin]) else {
            try store.recordFailedSignIn(address: address, at: now, forgetBefore: now - ConsoleOptions.throttleWindowSeconds)
            return .refused("That key cannot sign in to the console: it needs the report or admin scope and at least \(ConsoleOptions.minimumKeyLength) characters.")
        }
        let session = ConsoleSession(id: String(decoding: Digest.hex(Digest.randomBytes(16)), as: UTF8.self),
                                     keyHMAC: String(decoding: Self.keyHMAC(holder.key, secret: try secret()), as: UTF8.self),
                                     name: holder.name, createdAt: now, expiresAt: now + Int64(options.sessionHours) * 3600)
        try store.createSession(session)
        return .signedIn(session)
    }

    /// Revokes the session.
    func signOut(session id: String) throws {
        try store.revokeSession(id: id, at: now)
    }

    /// The client's address: the peer's, or behind `--trusted-proxy` the one it forwarded; nil when unknown.
    func clientAddress(_ request: HTTPRequest) -> String? {
        ClientAddress.client(peer: request.peer, forwardedFor: request.headers(ClientAddress.forwardedForHeader),
                             trustedProxy: options.trustedProxy)
    }

    /// `next` when it is a local path (one `/`, then not `/` or `\`), else `/`.
    static func localPath(_ next: String?) -> String {
        guard let next, next.hasPrefix("/"), !next.hasPrefix("//"), !next.hasPrefix("/\\"),
              next.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7F }) else { return "/" }
        return next
    }
}
