import Foundation
@testable import Server
import Testing

/// Failed sign-ins behind `--trusted-proxy`: a request from the proxy is counted under the rightmost
/// `X-Forwarded-For` address that is not the proxy; any other peer's `X-Forwarded-For` is ignored.
@Suite(.timeLimit(.minutes(3)))
struct ConsoleTrustedProxyTests {
    static let proxy = "10.0.0.1"

    static func server() throws -> InProcessServer {
        try ConsoleSignInTests.server { $0.console.trustedProxy = try ConsoleOptions.trustedProxy(proxy) }
    }

    /// Ten failed sign-ins through `browser`, each with `forwarded` as its `X-Forwarded-For` lines.
    static func fail(_ browser: ConsoleBrowser, forwarded: (Int) -> [String]) async {
        for n in 1...10 {
            let reply = await browser.signIn("report-key-0123456789abcd\(n)X", headers: forwarded(n).map { ("X-Forwarded-For", $0) })
            #expect(reply.status == 401)
        }
    }

    @Test func aTrustedProxysForwardedAddressIsThrottledOnItsOwn() async throws {
        let server = try Self.server()
        let viaProxy = ConsoleBrowser(server, peer: Self.proxy)
        await Self.fail(viaProxy) { _ in ["203.0.113.5"] }
        #expect(await viaProxy.signIn(ConsoleSignInTests.reportKey, headers: [("X-Forwarded-For", "203.0.113.5")]).status == 429)
        // What a client writes left of the proxy's own entry changes nothing: the rightmost address
        // that is not the proxy counts, on one line or on several.
        for lines in [["198.51.100.99, 203.0.113.5"], ["203.0.113.5, 10.0.0.1"], ["198.51.100.99", "203.0.113.5"]] {
            #expect(await viaProxy.signIn(ConsoleSignInTests.reportKey, headers: lines.map { ("X-Forwarded-For", $0) }).status == 429, "\(lines)")
        }
        // Another client behind the same proxy is not throttled, nor is the proxy's own address.
        #expect(await ConsoleBrowser(server, peer: Self.proxy).signIn(ConsoleSignInTests.reportKey, headers: [("X-Forwarded-For", "203.0.113.6")]).status == 303)
        #expect(await ConsoleBrowser(server, peer: Self.proxy).signIn(ConsoleSignInTests.reportKey, headers: [("X-Forwarded-For", "203.0.113.5, 203.0.113.7")]).status == 303)
    }

    @Test func anUntrustedPeersForwardedForIsIgnored() async throws {
        let server = try Self.server()
        let attacker = ConsoleBrowser(server, peer: "198.51.100.7")
        // A new forwarded address on every try does not escape the count of the peer's own.
        await Self.fail(attacker) { n in ["203.0.113.\(n)"] }
        #expect(await attacker.signIn(ConsoleSignInTests.reportKey, headers: [("X-Forwarded-For", "203.0.113.200")]).status == 429)
        // And the address it named was not counted: through the proxy it signs in.
        #expect(await ConsoleBrowser(server, peer: Self.proxy).signIn(ConsoleSignInTests.reportKey, headers: [("X-Forwarded-For", "203.0.113.1")]).status == 303)
    }

    @Test func aForwardedIPv6AddressCountsPerSlash64() async throws {
        let server = try Self.server()
        let viaProxy = ConsoleBrowser(server, peer: Self.proxy)
        // Spelled compressed, with brackets and a port, or whole: one /64 whatever the spelling.
        await Self.fail(viaProxy) { n in [n.isMultiple(of: 2) ? "2001:db8:5:6::\(n)" : "[2001:0db8:0005:0006:0:0:0:\(n)]:443"] }
        #expect(await viaProxy.signIn(ConsoleSignInTests.reportKey, headers: [("X-Forwarded-For", "2001:db8:5:6:ffff::1")]).status == 429)
        #expect(await viaProxy.signIn(ConsoleSignInTests.reportKey, headers: [("X-Forwarded-For", "2001:db8:5:7::1")]).status == 303)
    }

    @Test func addressesAreReadInOneSpelling() throws {
        #expect(ClientAddress.canonical("2001:DB8::1") == "2001:db8:0:0:0:0:0:1")
        #expect(ClientAddress.canonical(" [::1]:8080 ") == "0:0:0:0:0:0:0:1")
        #expect(ClientAddress.canonical("::ffff:192.0.2.1") == "192.0.2.1")
        #expect(ClientAddress.canonical("192.0.2.1:80") == "192.0.2.1")
        #expect(ClientAddress.canonical("unknown") == nil)
        #expect(ClientAddress.canonical("192.0.2.256") == nil)
        #expect(ClientAddress.throttleKey("2001:db8:5:6:0:0:0:1") == "2001:db8:5:6::/64")
        #expect(ClientAddress.throttleKey(nil) == "unknown")
        // A forwarded entry that is not an address falls back to the peer, the proxy itself.
        #expect(ClientAddress.client(peer: Self.proxy, forwardedFor: ["203.0.113.5, garbage"], trustedProxy: Self.proxy) == Self.proxy)
        #expect(ClientAddress.client(peer: Self.proxy, forwardedFor: [], trustedProxy: Self.proxy) == Self.proxy)
        #expect(throws: APIKeys.ConfigurationError.self) { try ConsoleOptions.trustedProxy("proxy.example.com") }
        #expect(try ConsoleOptions.trustedProxy("10.0.0.1") == "10.0.0.1")
    }
}
