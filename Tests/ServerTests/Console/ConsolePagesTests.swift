import Foundation
@testable import Server
import Testing
import TestSupport

/// The console's pages (docs/Console.md) in process: every experiment, one experiment's report with its
/// parameters, the stylesheet, escaping, and the `report` scope through the API.
@Suite(.timeLimit(.minutes(3)))
struct ConsolePagesTests {
    static func signedIn(_ experiments: ((String) throws -> Void)? = nil) async throws -> ConsoleBrowser {
        let server = try InProcessServer(options: {
            $0.keys = try APIKeys.parse(environment: ConsoleSignInTests.keys)
            $0.reportClock = Date(timeIntervalSince1970: 1_796_000_000)
        }, experiments: experiments)
        let browser = ConsoleBrowser(server)
        #expect(await browser.signIn(ConsoleSignInTests.reportKey).status == 303)
        // The figures the lease holder would have stored by now.
        ConsoleRefreshTests.refresher(server).refresh(now: Date())
        return browser
    }

    static let experimentIDs = ["chorus-discount-framing", "chorus-holdout", "chorus-paywall-copy", "chorus-trial-length", "chorus-voice"]

    @Test func theOverviewListsEveryExperimentWithItsVerdictAndIntervals() async throws {
        let browser = try await Self.signedIn()
        let page = await browser.request("GET", "/")
        #expect(page.status == 200)
        #expect(page.headers["content-type"] == "text/html; charset=utf-8")
        ConsoleSignInTests.expectConsoleHeaders(page)
        for id in Self.experimentIDs {
            #expect(page.text.contains("<a href=\"/experiments/\(id)\">"), "\(id)")
        }
        #expect(Self.verdictCells(page.text).count == Self.experimentIDs.count)
        #expect(page.text.contains("figures as of"))
        Self.expectNoInlineScriptOrStyle(page.text)
    }

    /// The overview's verdict cells: each its code and its words.
    static func verdictCells(_ html: String) -> [(code: String, words: String)] {
        html.matches(of: #/<td data-label="verdict" class="verdict-cell"><span class="verdict-(\w+)">([^<]*)</span>/#).map { (String($0.1), String($0.2)) }
    }

    /// On a phone each cell is read after its column's name ("verdict: keep running"), so the
    /// cell holds the verdict's words alone, as the table shows it under its header too.
    @Test func theOverviewsVerdictCellSaysTheVerdictOnce() async throws {
        let browser = try await Self.signedIn()
        let page = await browser.request("GET", "/")
        let cells = Self.verdictCells(page.text)
        #expect(cells.count == Self.experimentIDs.count)
        for cell in cells {
            #expect(cell.words.hasPrefix(cell.code.replacingOccurrences(of: "_", with: " ")), "\(cell)")
            #expect(!cell.words.localizedCaseInsensitiveContains("verdict"), "\(cell)")
        }
        #expect(!page.text.contains("Verdict"))
    }

    /// On a phone each cell shows its label before it: the metric cell starts with the metric's
    /// name, so its label is "primary metric", not the header's "…: difference (interval)".
    @Test func theMetricCellsCardLabelDoesNotRunIntoTheMetricsName() async throws {
        let browser = try await Self.signedIn()
        let text = await browser.request("GET", "/").text
        #expect(text.contains("<th>primary metric: difference (interval)</th>"))
        #expect(text.contains("<td data-label=\"primary metric\" class=\"metric-cell\">"))
        #expect(!text.contains("data-label=\"primary metric: difference (interval)\""))
    }

    @Test func theOverviewPutsWhatNeedsSomeoneFirst() async throws {
        let browser = try await Self.signedIn()
        let text = await browser.request("GET", "/").text
        let rows = text.components(separatedBy: "<tr").dropFirst(2)
        let needing = rows.map { $0.hasPrefix(" class=\"needs\"") }
        // Every row that needs someone comes before every row that does not.
        #expect(needing == needing.sorted { $0 && !$1 })
    }

    @Test func anExperimentsPageIsTheReportUnderAFormOfItsParameters() async throws {
        let browser = try await Self.signedIn()
        let page = await browser.request("GET", "/experiments/chorus-voice?until=2026-11-20&alpha=0.1&since=")
        #expect(page.status == 200)
        ConsoleSignInTests.expectConsoleHeaders(page)
        #expect(page.text.contains("<form class=\"params\" method=\"get\" action=\"/experiments/chorus-voice\""))
        for name in ["since", "until", "alpha", "by", "min_segment_users"] {
            #expect(page.text.contains("name=\"\(name)\""), "\(name)")
        }
        #expect(page.text.contains("name=\"until\" value=\"2026-11-20\""))
        #expect(page.text.contains("name=\"alpha\" value=\"0.1\""))
        #expect(page.text.contains("90% intervals"))
        #expect(page.text.contains("<section class=\"verdict"))
        Self.expectNoInlineScriptOrStyle(page.text)
        // The URL is the query: the same link gives the same figures (the file's history below
        // them is read in the background, so it may have arrived in between).
        let again = await browser.request("GET", "/experiments/chorus-voice?until=2026-11-20&alpha=0.1&since=")
        func figures(_ text: String) -> Substring { text[..<(text.range(of: "<section class=\"history\">")?.lowerBound ?? text.endIndex)] }
        #expect(figures(again.text) == figures(page.text))
        // And the API's report with the same parameters agrees on the users counted.
        let api = await browser.server.request("GET", "/v1/experiments/chorus-voice/report?until=2026-11-20&alpha=0.1",
                                              headers: ["Authorization": "Bearer \(ConsoleSignInTests.reportKey)"])
        #expect(api.status == 200)
        let users = try #require(api.json?["users"] as? Int)
        #expect(page.text.contains(users.formatted(.number.locale(Locale(identifier: "en_US")))) || page.text.contains(String(users)))
        // The effect over time, the API's `timeline` drawn and tabled: one day from the start (11-02) to the day before `until`.
        let timeline = try #require(api.json?["timeline"] as? [String: Any])
        let days = try #require(timeline["points"] as? [[String: Any]]).compactMap { $0["date"] as? String }
        #expect(days.first == "2026-11-02" && days.last == "2026-11-19" && days.count == 18, "\(days)")
        #expect(page.text.contains("<h2>The effect over time</h2>"))
        for day in days { #expect(page.text.contains("<tr><td>\(day)</td>"), "\(day)") }
    }

    @Test func thePlacementsPageListsEachPlacementsAudiencesInOrder() async throws {
        let browser = try await Self.signedIn()
        let page = await browser.request("GET", "/placements")
        #expect(page.status == 200)
        ConsoleSignInTests.expectConsoleHeaders(page)
        let text = page.text
        let onboarding = try #require(text.range(of: "<code>onboarding_end</code>"))
        #expect(text.contains("<code>feature_gate</code>"))
        let newIOS = try #require(text.range(of: "<td>new-ios</td>", range: onboarding.upperBound..<text.endIndex))
        let everyone = try #require(text.range(of: "<td>everyone</td>", range: onboarding.upperBound..<text.endIndex))
        #expect(newIOS.lowerBound < everyone.lowerBound)
        #expect(text.contains("<a href=\"/experiments/chorus-paywall-copy\">"))
        #expect(text.contains("{&quot;new_user&quot;:true,&quot;platform&quot;:&quot;ios&quot;}") || text.contains("{&quot;platform&quot;:&quot;ios&quot;,&quot;new_user&quot;:true}"))
        Self.expectNoInlineScriptOrStyle(text)
        #expect(await ConsoleBrowser(browser.server).request("GET", "/placements").status == 303)
    }

    @Test func aBadParameterIsShownInTheFormWithTheCLIsWords() async throws {
        let browser = try await Self.signedIn()
        for (query, field, message) in [
            ("alpha=0.7", "alpha", "'alpha' must be a number between 0 and 0.5, got '0.7'"),
            ("until=yesterday", "until", "'until' expects an RFC 3339 time or YYYY-MM-DD, got 'yesterday'"),
            ("by=planet", "by", "'chorus-voice' has no segment 'planet'"),
            ("colour=blue", nil, "unknown parameter 'colour'"),
        ] as [(String, String?, String)] {
            let page = await browser.request("GET", "/experiments/chorus-voice?" + query)
            #expect(page.status == 400, "\(query)")
            ConsoleSignInTests.expectConsoleHeaders(page)
            #expect(page.text.contains(HTMLEscape.escape(message)), "\(query)")
            if let field { #expect(page.text.contains("id=\"p-\(field)\" name=\"\(field)\""), "\(query)") }
            if let field { #expect(page.text.range(of: "name=\"\(field)\"[^>]*aria-invalid=\"true\"", options: .regularExpression) != nil, "\(query)") }
        }
    }

    @Test func anUnknownExperimentIsA404PageNamingTheNearestID() async throws {
        let browser = try await Self.signedIn()
        let page = await browser.request("GET", "/experiments/trial-length")
        #expect(page.status == 404)
        ConsoleSignInTests.expectConsoleHeaders(page)
        #expect(page.text.contains("Did you mean &#39;chorus-trial-length&#39;?"))
    }

    @Test func theStylesheetIsServedUnderItsHashAndCachedForAYear() async throws {
        let browser = try await Self.signedIn()
        let page = await browser.request("GET", "/").text
        let link = try #require(page.range(of: #"<link rel="stylesheet" href="/assets/console-[0-9a-f]{16}\.css">"#, options: .regularExpression))
        let path = String(page[link].dropFirst(#"<link rel="stylesheet" href=""#.count).dropLast(2))
        let css = await browser.request("GET", path)
        #expect(css.status == 200)
        #expect(css.headers["content-type"] == "text/css; charset=utf-8")
        #expect(css.headers["cache-control"] == "public, max-age=31536000, immutable")
        ConsoleSignInTests.expectConsoleHeaders(css, noStore: false)
        #expect(css.text.contains(".verdict"))
        // Signed out too (the sign-in page links it).
        #expect(await ConsoleBrowser(browser.server).request("GET", path).status == 200)
        #expect(await browser.request("GET", "/assets/console-0000000000000000.css").status == 404)
    }

    /// The one script: linked by every page (signed out and shared ones too), served under the first
    /// 16 hex digits of its SHA-256, cached for a year; the stylesheet's name is its hash the same way.
    @Test func theScriptIsServedUnderItsHashAndCachedForAYear() async throws {
        let browser = try await Self.signedIn()
        let tag = #"<script src="/assets/console-[0-9a-f]{16}\.js" defer></script>"#
        let page = await browser.request("GET", "/").text
        let link = try #require(page.range(of: tag, options: .regularExpression))
        let path = String(page[link].dropFirst(#"<script src=""#.count).prefix { $0 != "\"" })
        for target in ["/placements", "/experiments/chorus-voice"] {
            #expect(await browser.request("GET", target).text.components(separatedBy: "<script").count == 2, "\(target)")
        }
        #expect(await ConsoleBrowser(browser.server).request("GET", "/login").text.contains(path))
        let js = await browser.request("GET", path)
        #expect(js.status == 200)
        #expect(js.headers["content-type"] == "text/javascript; charset=utf-8")
        #expect(js.headers["cache-control"] == "public, max-age=31536000, immutable")
        ConsoleSignInTests.expectConsoleHeaders(js, noStore: false)
        #expect(path == "/assets/console-\(try Self.sha256(js.body).prefix(16)).js")
        #expect(js.text.contains("aria-sort"))
        #expect(await ConsoleBrowser(browser.server).request("GET", path).status == 200)
        #expect(await browser.request("GET", "/assets/console-0000000000000000.js").status == 404)
        // The stylesheet's name is its hash too.
        let css = try #require(page.range(of: #"/assets/console-[0-9a-f]{16}\.css"#, options: .regularExpression))
        #expect(String(page[css]) == "/assets/console-\(try Self.sha256(await browser.request("GET", String(page[css])).body).prefix(16)).css")
    }

    /// Every page starts with a link that skips to its content, and names every wide table's box
    /// and puts it in the tab order, so a keyboard can scroll it.
    @Test func pagesCanBeReadWithTheKeyboardAlone() async throws {
        let browser = try await Self.signedIn()
        for target in ["/", "/placements", "/experiments/chorus-voice"] {
            let page = await browser.request("GET", target).text
            #expect(page.contains("<a class=\"skip\" href=\"#main\">Skip to the content</a>"), "\(target)")
            #expect(page.contains("<main id=\"main\" tabindex=\"-1\">"), "\(target)")
            let boxes = page.components(separatedBy: "<div class=\"scroll\"").count - 1
            #expect(boxes > 0 && page.components(separatedBy: "<div class=\"scroll\" tabindex=\"0\" role=\"region\" aria-label=\"").count - 1 == boxes, "\(target)")
        }
        let overview = await browser.request("GET", "/").text
        #expect(overview.contains("aria-label=\"Every experiment\""))
        // A bandit's weights at a glance: each arm's share in percent, with a bar.
        #expect(overview.range(of: #"<ul class="arms weights"><li><code>warm</code> [0-9]+%<svg class="weight""#, options: .regularExpression) != nil)
        let placements = await browser.request("GET", "/placements").text
        #expect(placements.contains("aria-label=\"Audiences of onboarding_end\"><table class=\"ordered\">"))
    }

    /// `Referrer-Policy: no-referrer` makes a browser post forms with `Origin: null`, which every POST
    /// refuses (the browser test could not sign in): each page's own policy lets it send its origin.
    @Test func everyPageLetsTheBrowserSendItsOriginWithItsForms() async throws {
        let browser = try await Self.signedIn()
        let signedOut = ConsoleBrowser(browser.server)
        for page in [await browser.request("GET", "/"), await browser.request("GET", "/placements"),
                     await browser.request("GET", "/experiments/chorus-voice"), await signedOut.request("GET", "/login")] {
            #expect(page.headers["referrer-policy"] == "no-referrer")
            #expect(page.text.contains("<meta name=\"referrer\" content=\"same-origin\">"))
        }
    }

    /// The SHA-256 of `bytes` in hex, by coreutils' `sha256sum`.
    static func sha256(_ bytes: [UInt8]) throws -> String {
        let folder = TemporaryFolder()
        let path = folder.path + "/bytes"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let run = try ChildProcess.runBlocking("/usr/bin/sha256sum", [path])
        return run.stdout.split(separator: " ").first.map(String.init) ?? ""
    }

    @Test func textFromFilesIsEscapedWhereItIsWritten() async throws {
        let hostile = #"<script>alert(1)</script><img src=x onerror="alert(2)">"#
        let browser = try await Self.signedIn { folder in
            let path = folder + "/chorus-voice.json"
            var json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
            json["name"] = "Voice " + hostile
            json["hypothesis"] = "Hypothesis " + hostile
            var variants = try #require(json["variants"] as? [[String: Any]])
            for i in variants.indices {
                var paywall = variants[i]["paywall"] as? [String: Any] ?? [:]
                if var copy = paywall["copy"] as? [String: Any], copy["strategy"] as? String == "static" {
                    copy["text"] = "Copy " + hostile
                    paywall["copy"] = copy
                    variants[i]["paywall"] = paywall
                }
            }
            json["variants"] = variants
            try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys]).write(to: URL(fileURLWithPath: path))
        }
        for target in ["/", "/placements", "/experiments/chorus-voice", "/experiments/chorus-voice?alpha=0.7", "/experiments/" + ConsoleBrowser.encode("<script>")] {
            let page = await browser.request("GET", target)
            #expect(page.status != 303, "\(target)")
            #expect(!Self.withoutOwnScript(page.text).contains("<script"), "\(target)")
            #expect(!page.text.contains("<img"), "\(target)")
            #expect(!page.text.contains("onerror=\""), "\(target)")
            Self.expectNoInlineScriptOrStyle(page.text)
        }
        #expect(await browser.request("GET", "/").text.contains("Voice &lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=&quot;alert(2)&quot;&gt;"))
        #expect(await browser.request("GET", "/experiments/chorus-voice").text.contains("Hypothesis &lt;script&gt;"))
    }

    @Test func aReportKeyReadsButDoesNotAct() async throws {
        let browser = try await Self.signedIn()
        let auth = ["Authorization": "Bearer \(ConsoleSignInTests.reportKey)"]
        #expect(await browser.server.request("GET", "/v1/experiments", headers: auth).status == 200)
        #expect(await browser.server.request("GET", "/v1/experiments/chorus-voice/report", headers: auth).status == 200)
        let copy = #"{"experiment":"chorus-paywall-copy","variant":"ai","text":"Chorus"}"#
        #expect(await browser.server.request("POST", "/v1/copy/check", headers: auth, body: copy).status == 403)
        #expect(await browser.server.request("POST", "/v1/events", headers: auth, body: "[]").status == 403)
        #expect(await browser.server.request("GET", "/v1/diagnostics/copy", headers: auth).status == 403)
        // The API never reads the cookie.
        let cookie = "abctl_session=" + (browser.cookies["abctl_session"] ?? "")
        #expect(await browser.server.request("GET", "/v1/experiments", headers: ["Cookie": cookie]).status == 401)
    }

    /// `html` without the one script tag a page may hold: the console's own, by its hashed path.
    static func withoutOwnScript(_ html: String) -> String {
        html.replacingOccurrences(of: #"<script src="/assets/console-[0-9a-f]{16}\.js" defer></script>"#, with: "", options: .regularExpression)
    }

    static func expectNoInlineScriptOrStyle(_ html: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let html = withoutOwnScript(html)
        #expect(!html.contains("<script"), sourceLocation: sourceLocation)
        #expect(!html.contains("<style"), sourceLocation: sourceLocation)
        #expect(!html.contains("style="), sourceLocation: sourceLocation)
        // No event handler attribute in any tag (text holds no raw "<": it is escaped).
        #expect(html.range(of: #"<[^>]*\son[a-z]+\s*="#, options: .regularExpression) == nil, sourceLocation: sourceLocation)
    }
}

/// The escaping the console's pages use, to build the text a test expects.
enum HTMLEscape {
    static func escape(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
            .replacingOccurrences(of: "\"", with: "&quot;").replacingOccurrences(of: "'", with: "&#39;")
    }
}
