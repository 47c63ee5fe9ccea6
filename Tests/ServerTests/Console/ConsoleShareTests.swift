import Foundation
import Server
import SQLiteStore
import Synchronization
import Testing

/// Share links: made from an experiment's page by a signed-in key, one experiment's
/// report with fixed parameters for someone without a key, ending at expiry, on revocation or
/// with the key that made them.
@Suite(.timeLimit(.minutes(2)))
struct ConsoleShareTests {
    static func makeShare(_ browser: ConsoleBrowser, query: String = "until=2026-11-20&alpha=0.1", days: String? = nil) async throws -> String {
        let page = await browser.request("GET", "/experiments/chorus-voice?" + query)
        #expect(page.status == 200)
        #expect(page.text.contains("name=\"parameters\" value=\"\(HTMLEscape.escape(query))\""))
        var form = [("form_token", ConsoleBrowser.formToken(page.text) ?? ""), ("parameters", query)]
        if let days { form.append(("days", days)) }
        let made = await browser.request("POST", "/experiments/chorus-voice/share", form: form)
        #expect(made.status == 303)
        #expect(made.headers["location"] == "/experiments/chorus-voice" + (query.isEmpty ? "" : "?" + query))
        let listed = Self.links(await browser.request("GET", "/experiments/chorus-voice?" + query).text)
        let new = listed.subtracting(Self.links(page.text))
        #expect(new.count == 1)
        return try #require(new.first)
    }

    /// The share links a page lists.
    static func links(_ html: String) -> Set<String> {
        Set(html.matches(of: /\/share\/[0-9a-f]{40}/).map { String($0.output) })
    }

    @Test func aShareShowsTheReportWithItsParametersAndNothingElse() async throws {
        let browser = try await ConsolePagesTests.signedIn()
        let link = try await Self.makeShare(browser)
        let stranger = ConsoleBrowser(browser.server)
        let shared = await stranger.request("GET", link)
        #expect(shared.status == 200)
        ConsoleSignInTests.expectConsoleHeaders(shared)
        #expect(shared.text.contains("A shared report, read only, until"))
        #expect(shared.text.contains("90% intervals"))
        #expect(shared.text.contains("<section class=\"verdict"))
        // Nothing else: no form, no link to other pages, no sign-out.
        #expect(!shared.text.contains("<form"))
        #expect(!shared.text.contains("href=\"/\""))
        #expect(!shared.text.contains("/placements"))
        ConsolePagesTests.expectNoInlineScriptOrStyle(shared.text)
        // The share is no session: its id opens no page.
        let id = String(link.dropFirst("/share/".count))
        stranger.setCookie("abctl_session", id)
        #expect(await stranger.request("GET", "/").status == 303)
        // And a session's id is no share.
        let session = try #require(browser.cookies["abctl_session"])
        #expect(await stranger.request("GET", "/share/" + session).status == 404)
    }

    @Test func sharesLastAtMost90Days() async throws {
        let browser = try await ConsolePagesTests.signedIn()
        let page = await browser.request("GET", "/experiments/chorus-voice")
        let token = ConsoleBrowser.formToken(page.text) ?? ""
        for days in ["91", "0", "two", "-1"] {
            let reply = await browser.request("POST", "/experiments/chorus-voice/share", form: [("form_token", token), ("days", days)])
            #expect(reply.status == 400, "\(days)")
            ConsoleSignInTests.expectConsoleHeaders(reply)
        }
        #expect(await browser.request("POST", "/experiments/chorus-voice/share", form: [("form_token", token), ("parameters", "alpha=0.9")]).status == 400)
        #expect(await browser.request("POST", "/experiments/nope/share", form: [("form_token", token)]).status == 404)
        // A POST without the token or from elsewhere makes nothing.
        #expect(await browser.request("POST", "/experiments/chorus-voice/share", form: [("days", "14")]).status == 403)
        #expect(await browser.request("POST", "/experiments/chorus-voice/share", form: [("form_token", token)], origin: .some("https://evil.example")).status == 403)
        #expect(try browser.server.store.shares(experiment: "chorus-voice").isEmpty)
        let link = try await Self.makeShare(browser, query: "", days: "90")
        let share = try #require(try browser.server.store.share(id: String(link.dropFirst("/share/".count))))
        #expect(share.expiresAt - share.createdAt == 90 * 86_400)
        let defaulted = try await Self.makeShare(browser, query: "alpha=0.2")
        let fourteen = try #require(try browser.server.store.share(id: String(defaulted.dropFirst("/share/".count))))
        #expect(fourteen.expiresAt - fourteen.createdAt == 14 * 86_400)
        #expect(fourteen.parameters == "alpha=0.2")
    }

    @Test func aShareEndsWhenRevokedAtItsExpiryOrWithItsKey() async throws {
        let clock = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
        let server = try ConsoleSignInTests.server { $0.console.now = { clock.withLock { $0 } } }
        let browser = ConsoleBrowser(server)
        _ = await browser.signIn(ConsoleSignInTests.reportKey)
        let link = try await Self.makeShare(browser, days: "1")
        let stranger = ConsoleBrowser(server)
        #expect(await stranger.request("GET", link).status == 200)
        // Another node with the key gone shows nothing.
        let keyless = try ConsoleSignInTests.server({ $0.keys = try APIKeys.parse(environment: "\(ConsoleSignInTests.adminKey):admin")
                                                      $0.console.now = { clock.withLock { $0 } } },
                                                    store: try SQLiteEventStore(path: server.databasePath))
        #expect(await ConsoleBrowser(keyless).request("GET", link).status == 404)
        // Expiry.
        clock.withLock { $0 += 86_400 }
        #expect(await stranger.request("GET", link).status == 404)
        clock.withLock { $0 -= 1 }
        #expect(await stranger.request("GET", link).status == 200)
        // Revoked from the experiment's page, with its token (a new sign-in: a day has passed).
        #expect(await browser.request("GET", "/").status == 303)
        _ = await browser.signIn(ConsoleSignInTests.reportKey)
        let page = await browser.request("GET", "/experiments/chorus-voice")
        let id = String(link.dropFirst("/share/".count))
        #expect(page.text.contains("action=\"/experiments/chorus-voice/shares/\(id)/revoke\""))
        #expect(await browser.request("POST", "/experiments/chorus-voice/shares/\(id)/revoke", form: []).status == 403)
        #expect(await browser.request("POST", "/experiments/chorus-trial-length/shares/\(id)/revoke",
                                      form: [("form_token", ConsoleBrowser.formToken(page.text) ?? "")]).status == 404)
        #expect(await stranger.request("GET", link).status == 200)
        let revoked = await browser.request("POST", "/experiments/chorus-voice/shares/\(id)/revoke", form: [("form_token", ConsoleBrowser.formToken(page.text) ?? "")])
        #expect(revoked.status == 303)
        #expect(await stranger.request("GET", link).status == 404)
        #expect(!(await browser.request("GET", "/experiments/chorus-voice").text.contains(id)))
        #expect(await stranger.request("GET", "/share/" + String(repeating: "0", count: 40)).status == 404)
    }
}
