import Events
import Foundation
import Server
import SQLiteStore
import Synchronization
import Testing
import TestSupport

/// Sign-in, sessions, tokens, cookies, `Origin`, `Host` and the throttle of the console,
/// through the route table in process.
@Suite(.timeLimit(.minutes(2)))
struct ConsoleSignInTests {
    static let reportKey = "report-key-0123456789abcdef"
    static let adminKey = "admin-key-0123456789abcdefgh"
    static let keys = "\(reportKey):report:ana-pm;\(adminKey):admin;short-report:report;assign-key-0123456789abcdef:assign"

    static func server(_ adjust: @escaping (inout APIServer.Options) throws -> Void = { _ in }, store: (any EventStore)? = nil) throws -> InProcessServer {
        try InProcessServer(options: {
            $0.keys = try APIKeys.parse(environment: Self.keys)
            $0.reportClock = Date(timeIntervalSince1970: 1_796_000_000)
            try adjust(&$0)
        }, store: store)
    }

    static let securityHeaders = [
        "content-security-policy": "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
        "x-content-type-options": "nosniff",
        "referrer-policy": "no-referrer",
    ]

    static func expectConsoleHeaders(_ reply: APIReply, noStore: Bool = true, sourceLocation: SourceLocation = #_sourceLocation) {
        for (name, value) in securityHeaders { #expect(reply.headers[name] == value, "\(name)", sourceLocation: sourceLocation) }
        if noStore { #expect(reply.headers["cache-control"] == "no-store", sourceLocation: sourceLocation) }
    }

    @Test func aPageWithoutASessionGoesToSignInWithItsPath() async throws {
        let browser = ConsoleBrowser(try Self.server())
        let page = await browser.request("GET", "/experiments/chorus-voice?alpha=0.1")
        #expect(page.status == 303)
        #expect(page.headers["location"] == "/login?next=/experiments/chorus-voice%3Falpha%3D0.1")
        Self.expectConsoleHeaders(page)
        let overview = await browser.request("GET", "/")
        #expect(overview.status == 303)
        #expect(overview.headers["location"] == "/login?next=/")
    }

    @Test func signingInMakesASessionInTheStoreAndASecureCookie() async throws {
        let server = try Self.server()
        let browser = ConsoleBrowser(server)
        let form = await browser.request("GET", "/login")
        #expect(form.status == 200)
        Self.expectConsoleHeaders(form)
        #expect(form.setCookies.count == 1)
        #expect(form.setCookies[0].hasPrefix("abctl_signin="))
        #expect(form.setCookies[0].hasSuffix("; Path=/; HttpOnly; SameSite=Strict; Secure"))
        let signedIn = await browser.request("POST", "/login", form: [("form_token", ConsoleBrowser.formToken(form.text) ?? ""), ("key", Self.reportKey),
                                                                      ("next", "/experiments/chorus-voice")])
        #expect(signedIn.status == 303)
        #expect(signedIn.headers["location"] == "/experiments/chorus-voice")
        Self.expectConsoleHeaders(signedIn)
        let cookie = try #require(signedIn.setCookies.first { $0.hasPrefix("abctl_session=") })
        #expect(cookie.hasSuffix("; Max-Age=43200; Path=/; HttpOnly; SameSite=Strict; Secure"))
        let id = try #require(browser.cookies["abctl_session"])
        #expect(id.count == 32 && id.allSatisfy(\.isHexDigit))
        #expect(browser.cookies["abctl_signin"] == nil)
        let stored = try #require(try server.store.session(id: id))
        #expect(stored.name == "ana-pm")
        #expect(stored.revokedAt == nil)
        #expect(stored.expiresAt - stored.createdAt == 12 * 3600)
        // The key itself is never kept: its HMAC is.
        #expect(!stored.keyHMAC.contains(Self.reportKey))
        #expect(stored.keyHMAC.count == 64)
        let overview = await browser.request("GET", "/")
        #expect(overview.status == 200)
        #expect(overview.text.contains("signed in as ana-pm"))
        Self.expectConsoleHeaders(overview)
        // Each sign-in is a new session.
        _ = await browser.signIn(Self.reportKey)
        #expect(browser.cookies["abctl_session"] != id)
    }

    @Test func nextIsFollowedOnlyToALocalPath() async throws {
        let server = try Self.server()
        for (next, expected) in [("/experiments/chorus-voice", "/experiments/chorus-voice"), ("//evil.example/x", "/"),
                                 ("https://evil.example/", "/"), ("/\\evil.example", "/"), ("", "/")] {
            let browser = ConsoleBrowser(server)
            let reply = await browser.signIn(Self.adminKey, next: next)
            #expect(reply.status == 303)
            #expect(reply.headers["location"] == expected, "\(next)")
        }
    }

    @Test func keysThatCannotSignInAreRefused() async throws {
        let server = try Self.server()
        for key in ["short-report", "assign-key-0123456789abcdef", "report-key-0123456789abcdeX", ""] {
            let browser = ConsoleBrowser(server, peer: "192.0.2.\(key.count)")
            let reply = await browser.signIn(key)
            #expect(reply.status == 401, "\(key)")
            #expect(reply.text.contains("cannot sign in"))
            #expect(browser.cookies["abctl_session"] == nil)
            Self.expectConsoleHeaders(reply)
        }
    }

    @Test func aPostMustComeFromTheConsolesOwnOriginWithItsToken() async throws {
        let server = try Self.server()
        let browser = ConsoleBrowser(server)
        let page = await browser.request("GET", "/login")
        let token = ConsoleBrowser.formToken(page.text) ?? ""
        let form = [("form_token", token), ("key", Self.reportKey)]
        for origin in ["null", "https://evil.example", "http://console.example.com.evil.example"] {
            let reply = await browser.request("POST", "/login", form: form, origin: .some(origin))
            #expect(reply.status == 403, "\(origin)")
            Self.expectConsoleHeaders(reply)
        }
        // No Origin: only with Sec-Fetch-Site: same-origin.
        #expect(await browser.request("POST", "/login", form: form, origin: .some(nil)).status == 403)
        #expect(await browser.request("POST", "/login", form: form, origin: .some(nil), headers: [("Sec-Fetch-Site", "cross-site")]).status == 403)
        // A forged or missing token.
        #expect(await browser.request("POST", "/login", form: [("form_token", String(token.reversed())), ("key", Self.reportKey)]).status == 403)
        #expect(await browser.request("POST", "/login", form: [("key", Self.reportKey)]).status == 403)
        #expect(browser.cookies["abctl_session"] == nil)
        let ok = await browser.request("POST", "/login", form: form, origin: .some(nil), headers: [("Sec-Fetch-Site", "same-origin")])
        #expect(ok.status == 303)
        #expect(browser.cookies["abctl_session"] != nil)
    }

    @Test func thePublicURLIsTheOriginWhenGiven() async throws {
        let server = try Self.server { $0.console.publicURL = "https://abctl.example.org/console" }
        let browser = ConsoleBrowser(server)
        let page = await browser.request("GET", "/login")
        let form = [("form_token", ConsoleBrowser.formToken(page.text) ?? ""), ("key", Self.reportKey)]
        #expect(await browser.request("POST", "/login", form: form).status == 403)
        #expect(await browser.request("POST", "/login", form: form, origin: .some("https://abctl.example.org")).status == 303)
    }

    @Test func signingOutRevokesTheSessionWithAValidToken() async throws {
        let server = try Self.server()
        let browser = ConsoleBrowser(server)
        _ = await browser.signIn(Self.reportKey)
        let id = try #require(browser.cookies["abctl_session"])
        let page = await browser.request("GET", "/")
        let token = try #require(ConsoleBrowser.formToken(page.text))
        // Without the token, or from elsewhere: refused, and the session stays.
        #expect(await browser.request("POST", "/logout", form: []).status == 403)
        #expect(await browser.request("POST", "/logout", form: [("form_token", token)], origin: .some("https://evil.example")).status == 403)
        #expect(await browser.request("GET", "/").status == 200)
        // Another session's token is not this one's.
        let other = ConsoleBrowser(server)
        _ = await other.signIn(Self.adminKey)
        let otherToken = try #require(ConsoleBrowser.formToken(await other.request("GET", "/").text))
        #expect(otherToken != token)
        #expect(await browser.request("POST", "/logout", form: [("form_token", otherToken)]).status == 403)
        let out = await browser.request("POST", "/logout", form: [("form_token", token)])
        #expect(out.status == 303)
        #expect(out.headers["location"] == "/login")
        #expect(out.setCookies.contains { $0.hasPrefix("abctl_session=;") && $0.contains("Max-Age=0") })
        #expect(try server.store.session(id: id)?.revokedAt != nil)
        // The revoked id is refused even when sent again.
        browser.setCookie("abctl_session", id)
        #expect(await browser.request("GET", "/").status == 303)
        #expect(await other.request("GET", "/").status == 200)
    }

    @Test func aSessionEndsAtItsExpiry() async throws {
        let clock = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
        let server = try Self.server { $0.console.now = { clock.withLock { $0 } }; $0.console.sessionHours = 2 }
        let browser = ConsoleBrowser(server)
        let signedIn = await browser.signIn(Self.reportKey)
        #expect(signedIn.setCookies.contains { $0.contains("Max-Age=7200;") })
        clock.withLock { $0 += 7199 }
        #expect(await browser.request("GET", "/").status == 200)
        clock.withLock { $0 += 1 }
        #expect(await browser.request("GET", "/").status == 303)
    }

    @Test func aSessionEndsWhenItsKeyIsRemovedOrLosesItsScope() async throws {
        let first = try Self.server()
        let browser = ConsoleBrowser(first)
        _ = await browser.signIn(Self.reportKey)
        let id = try #require(browser.cookies["abctl_session"])
        #expect(await browser.request("GET", "/").status == 200)
        // Another node on the same store knows the session, with the same keys…
        let sameKeys = try Self.server(store: try SQLiteEventStore(path: first.databasePath))
        let there = ConsoleBrowser(sameKeys)
        there.setCookie("abctl_session", id)
        #expect(await there.request("GET", "/").status == 200)
        // …and not once the key has gone, or is left without report or admin.
        for keys in ["\(Self.adminKey):admin", "\(Self.reportKey):assign"] {
            let other = try Self.server({ $0.keys = try APIKeys.parse(environment: keys) }, store: try SQLiteEventStore(path: first.databasePath))
            let elsewhere = ConsoleBrowser(other)
            elsewhere.setCookie("abctl_session", id)
            #expect(await elsewhere.request("GET", "/").status == 303, "\(keys)")
        }
        // A made-up id is no session.
        browser.setCookie("abctl_session", String(repeating: "0", count: 32))
        #expect(await browser.request("GET", "/").status == 303)
        browser.setCookie("abctl_session", "not-an-id")
        #expect(await browser.request("GET", "/").status == 303)
    }

    /// The keys file read again (SIGHUP) on the running node: a key removed ends its sessions and its
    /// API calls at once; a key stripped of its scope loses the routes of that scope; a file left
    /// with no key is refused and the keys in force stay.
    @Test func reloadingTheKeysFileEndsTheSessionsOfARemovedKey() async throws {
        let folder = TemporaryFolder(prefix: "abctl-keys")
        let file = folder.path + "/keys"
        func write(_ lines: [String]) throws { try lines.joined(separator: "\n").write(toFile: file, atomically: true, encoding: .utf8) }
        let assignKey = "assign-key-0123456789abcdef"
        try write(["\(Self.reportKey) report ana-pm", "\(Self.adminKey) admin", "\(assignKey) assign"])
        let server = try Self.server { $0.keys = try APIKeys.read(file: file); $0.keysFile = file }
        let browser = ConsoleBrowser(server)
        _ = await browser.signIn(Self.reportKey)
        #expect(await browser.request("GET", "/").status == 200)
        func assignStatus() async -> Int {
            await server.request("POST", "/v1/assign", headers: ["Authorization": "Bearer \(assignKey)"],
                                 body: #"{"user_id":"u1","attributes":{"app_version":"2.4.0","platform":"ios"},"experiments":["chorus-discount-framing"]}"#).status
        }
        #expect(await assignStatus() == 200)

        try write(["\(Self.adminKey) admin", "\(assignKey) ingest"])
        server.api.reload()
        #expect(await browser.request("GET", "/").status == 303, "the removed key's session ended")
        #expect(await assignStatus() == 403, "the assign scope is gone")

        try write(["# every key removed"])
        server.api.reload()
        #expect(server.api.keys.current.count == 2, "a file with no key is refused")
        #expect(await assignStatus() == 403)
    }

    @Test func theSecretFromTheEnvironmentSignsSessionsAndTokens() async throws {
        let secret = Array("0123456789abcdef0123456789abcdef".utf8)
        let first = try Self.server { $0.console.sessionSecret = secret }
        let browser = ConsoleBrowser(first)
        _ = await browser.signIn(Self.reportKey)
        let id = try #require(browser.cookies["abctl_session"])
        // A node with another secret cannot match the session's key.
        let other = try Self.server({ $0.console.sessionSecret = Array("fedcba9876543210fedcba9876543210".utf8) },
                                    store: try SQLiteEventStore(path: first.databasePath))
        let elsewhere = ConsoleBrowser(other)
        elsewhere.setCookie("abctl_session", id)
        #expect(await elsewhere.request("GET", "/").status == 303)
        #expect(throws: APIKeys.ConfigurationError.self) { try ConsoleOptions.secret(environment: "too short") }
        #expect(try ConsoleOptions.secret(environment: "0123456789abcdef0123456789abcdef") == secret)
    }

    @Test func failedSignInsAreThrottledPerAddress() async throws {
        let server = try Self.server()
        let attacker = ConsoleBrowser(server, peer: "198.51.100.7")
        for n in 1...10 {
            #expect(await attacker.signIn("report-key-0123456789abcd\(n)X").status == 401)
        }
        // The eleventh try within the minute is not checked, even with the right key.
        let throttled = await attacker.signIn(Self.reportKey)
        #expect(throttled.status == 429)
        #expect(throttled.headers["retry-after"] == "60")
        #expect(attacker.cookies["abctl_session"] == nil)
        Self.expectConsoleHeaders(throttled)
        // Another address is not.
        #expect(await ConsoleBrowser(server, peer: "198.51.100.8").signIn(Self.reportKey).status == 303)
        // IPv6 addresses count per /64.
        for n in 1...10 {
            #expect(await ConsoleBrowser(server, peer: "2001:db8:1:2:0:0:0:\(n)").signIn("nope-\(n)").status == 401)
        }
        #expect(await ConsoleBrowser(server, peer: "2001:db8:1:2:ffff:0:0:1").signIn(Self.reportKey).status == 429)
        #expect(await ConsoleBrowser(server, peer: "2001:db8:1:3:0:0:0:1").signIn(Self.reportKey).status == 303)
    }

    @Test func theInsecureCookieLeavesSecureOut() async throws {
        let browser = ConsoleBrowser(try Self.server { $0.console.insecureCookie = true })
        let reply = await browser.signIn(Self.reportKey)
        let cookie = try #require(reply.setCookies.first { $0.hasPrefix("abctl_session=") })
        #expect(cookie.hasSuffix("; Path=/; HttpOnly; SameSite=Strict"))
    }

    @Test func withoutKeysTheConsoleIsOpenOnLoopbackNamesOnly() async throws {
        let server = try InProcessServer { $0.reportClock = Date(timeIntervalSince1970: 1_796_000_000) }
        for host in ["localhost:8080", "127.0.0.1:8080", "[::1]:8080", "localhost"] {
            let page = await ConsoleBrowser(server, host: host).request("GET", "/")
            #expect(page.status == 200, "\(host)")
            Self.expectConsoleHeaders(page)
            #expect(!page.text.contains("Sign out"))
        }
        for host in ["evil.example", "127.0.0.1.evil.example", "localhost.evil.example:80", ""] {
            let page = await ConsoleBrowser(server, host: host).request("GET", "/")
            #expect(page.status == 421, "\(host)")
            Self.expectConsoleHeaders(page)
            #expect(await ConsoleBrowser(server, host: host).request("GET", "/login").status == 421)
            #expect(await ConsoleBrowser(server, host: host).request("POST", "/login", form: [("key", "x")]).status == 421)
        }
        // Sign-in has nothing to do: the page sends people on.
        let login = await ConsoleBrowser(server, host: "localhost:8080").request("GET", "/login?next=/experiments/chorus-voice")
        #expect(login.status == 303)
        #expect(login.headers["location"] == "/experiments/chorus-voice")
    }
}
