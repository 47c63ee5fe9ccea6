import Foundation
@testable import Server
import Assignment
import Reporting
import ExperimentDefinitions
import Testing
import TestSupport

/// An experiment's page below its report: the next step as the edit to the file, the file as the
/// server loaded it, and its history in git with what `validate --against` says of each change.
@Suite(.timeLimit(.minutes(3)))
struct ConsoleExperimentFileTests {
    static let hostile = #"<script>alert(1)</script><img src=x onerror="alert(2)">"#
    static let hostileAuthor = #"Ann "x" onerror="alert(3)" Lee"#

    /// `git -C folder arguments…`, as a person would run it (a fixed identity, no signing).
    static func git(_ folder: String, _ arguments: [String], author: String = "Ana") throws {
        let run = try ChildProcess.runBlocking("/usr/bin/git", ["-C", folder, "-c", "user.name=\(author)", "-c", "user.email=ana@example.com",
                                                               "-c", "commit.gpgsign=false"] + arguments)
        #expect(run.status == 0, "git \(arguments): \(run.stderr)")
    }

    /// Rewrites one experiment file through `change`.
    static func edit(_ path: String, _ change: (inout [String: Any]) -> Void) throws {
        var json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        change(&json)
        try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys, .prettyPrinted]).write(to: URL(fileURLWithPath: path))
    }

    static func signedIn(_ experiments: ((String) throws -> Void)? = nil) async throws -> ConsoleBrowser {
        let browser = ConsoleBrowser(try InProcessServer(options: {
            $0.keys = try APIKeys.parse(environment: ConsoleSignInTests.keys)
            $0.reportClock = Date(timeIntervalSince1970: 1_796_000_000)
        }, experiments: experiments))
        #expect(await browser.signIn(ConsoleSignInTests.reportKey).status == 303)
        return browser
    }

    /// The page once its history has been read (the first view only asks for it).
    static func pageWithHistory(_ browser: ConsoleBrowser, _ target: String) async throws -> String {
        for _ in 0..<300 {
            let text = await browser.request("GET", target).text
            if !text.contains("is being read from git") { return text }
            try await Task.sleep(for: .milliseconds(100))
        }
        Issue.record("the history was never read")
        return ""
    }

    @Test func theHistoryListsTheCommitsThatChangedTheFileWithWhatValidateAgainstSays() async throws {
        let browser = try await Self.signedIn { folder in
            try Self.git(folder, ["init", "-q"])
            try Self.git(folder, ["add", "."])
            try Self.git(folder, ["commit", "-q", "-m", "Add the experiments"])
            try Self.edit(folder + "/chorus-paywall-copy.json") { $0["hypothesis"] = "Another file's change." }
            try Self.git(folder, ["commit", "-q", "-am", "Only the copy test"])
            // A name and an arm's copy holding markup, by an author and under a subject holding it too.
            try Self.edit(folder + "/chorus-trial-length.json") { json in
                json["name"] = "Trial " + Self.hostile
                var variants = json["variants"] as? [[String: Any]] ?? []
                var paywall = variants[1]["paywall"] as? [String: Any] ?? [:]
                paywall["copy"] = ["strategy": "static", "text": "Copy " + Self.hostile]
                variants[1]["paywall"] = paywall
                json["variants"] = variants
            }
            // git drops '<' and '>' from a name, so the author's markup is an attribute.
            try Self.git(folder, ["commit", "-q", "-am", "Subject " + Self.hostile], author: Self.hostileAuthor)
            // A new seed draws every user's bucket again: half of a two-arm test's users change arm.
            try Self.edit(folder + "/chorus-trial-length.json") { $0["seed"] = "chorus-trial-length-2" }
            try Self.git(folder, ["commit", "-q", "-am", "Reseed the trial test"])
        }
        let first = await browser.request("GET", "/experiments/chorus-trial-length")
        #expect(first.status == 200)
        // The page never waits for git: the first view only asks for the history.
        #expect(first.text.contains("The file's history is being read from git"))
        let page = try await Self.pageWithHistory(browser, "/experiments/chorus-trial-length")
        let history = try #require(page.range(of: "<h2>History</h2>")).upperBound
        let rows: [String] = Array(String(page[history...]).components(separatedBy: "<tr><td>").dropFirst())
        #expect(rows.count == 3, "\(rows)")
        guard rows.count == 3 else { return }
        #expect(rows[0].contains("<td>Ana</td><td>Reseed the trial test</td>"))
        #expect(rows[0].contains("error <code>reshuffles_running_experiment</code>"))
        #expect(rows[0].contains("moves 50.00% of the users it had enrolled"))
        #expect(rows[1].contains("<td>\(HTMLEscape.escape(Self.hostileAuthor))</td><td>Subject \(HTMLEscape.escape(Self.hostile))</td>"))
        #expect(rows[1].contains("warning <code>running_arm_changed</code>"))
        #expect(!rows[1].contains("moves"))
        #expect(rows[2].contains("<td>Add the experiments</td>") && rows[2].contains("not checked: the first commit"))
        #expect(!page.contains("Only the copy test"))
        // The file as loaded, escaped, in a box that scrolls on its own.
        #expect(page.contains("<h2>The file as loaded</h2>"))
        #expect(page.contains("<pre class=\"file-text\" tabindex=\"0\" role=\"region\" aria-label=\"The file as loaded\"><code>"))
        #expect(page.contains(HTMLEscape.escape(#""seed" : "chorus-trial-length-2""#)))
        #expect(page.contains("Copy &lt;script&gt;alert(1)&lt;\\/script&gt;"))
        ConsolePagesTests.expectNoInlineScriptOrStyle(page)
        #expect(!page.contains("<img") && !page.contains("onerror=\""))
        // Read once and kept: the next view shows the same reading, without running git again.
        let readAt = try #require(page.range(of: #"\(read [^)]*\)"#, options: .regularExpression)).lowerBound
        let again = await browser.request("GET", "/experiments/chorus-trial-length").text
        #expect(again.contains(String(page[readAt...].prefix(40))))
    }

    @Test func withoutAGitWorkTreeTheHistorySaysSoInOneLine() async throws {
        let browser = try await Self.signedIn()
        let page = try await Self.pageWithHistory(browser, "/experiments/chorus-voice")
        #expect(page.contains("<h2>History</h2><p class=\"muted\">The experiments folder is not in a git work tree, so the file has no history here.</p></section>"))
        #expect(page.contains("<h2>The file as loaded</h2>"))
    }

    @Test func gitFailingIsSaidInOneLine() async throws {
        // A work tree without a commit: git log fails on it.
        let browser = try await Self.signedIn { folder in try Self.git(folder, ["init", "-q"]) }
        let page = try await Self.pageWithHistory(browser, "/experiments/chorus-voice")
        let line = try #require(page.range(of: #"<h2>History</h2><p class="error">The history could not be read from git: git log failed: [^<]*</p></section>"#,
                                           options: .regularExpression))
        #expect(page[line].contains("does not have any commits yet"), "\(page[line])")
    }

    @Test func aGitRunIsBoundedInOutput() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("abctl-git-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Self.git(folder, ["init", "-q"])
        try Data(String(repeating: "a line of text\n", count: 10_000).utf8).write(to: URL(fileURLWithPath: folder + "/big.txt"))
        try Self.git(folder, ["add", "."])
        try Self.git(folder, ["commit", "-q", "-m", "big"])
        #expect(throws: GitCommand.Failure.outputTooLarge(bytes: 1000)) {
            try GitCommand.run(["show", "HEAD:big.txt"], in: folder, limits: .init(seconds: 20, outputBytes: 1000))
        }
        let whole = try GitCommand.run(["show", "HEAD:big.txt"], in: folder, limits: .init(seconds: 20, outputBytes: 1 << 20))
        #expect(whole.status == 0 && whole.output.count == 150_000)
    }

    @Test func aGitRunIsBoundedInTime() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("abctl-git-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let started = ContinuousClock.now
        #expect(throws: GitCommand.Failure.timedOut(seconds: 0.5)) {
            try GitCommand.run(["-c", "alias.stall=!sleep 30", "stall"], in: folder, limits: .init(seconds: 0.5, outputBytes: 1000))
        }
        // Killed, not waited for: the run ends long before the sleep would.
        #expect(ContinuousClock.now - started < .seconds(20))
    }

    @Test func aGitThatWritesMuchToStderrIsReadToItsEnd() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("abctl-git-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // 200,000 bytes of warnings: past the 64 KiB kept of stderr and a pipe's buffer. A reader that
        // stopped at the bound and closed its end would end the writer with SIGPIPE (no "done").
        let noisy = try GitCommand.run(["-c", "alias.noisy=!(head -c 200000 /dev/zero | tr '\\0' w >&2) && echo done", "noisy"], in: folder,
                                       limits: .init(seconds: 15, outputBytes: 1000))
        #expect(noisy.status == 0 && String(decoding: noisy.output, as: UTF8.self) == "done\n")
        #expect(noisy.error.count == 64 << 10 && noisy.error.allSatisfy { $0 == UInt8(ascii: "w") })
    }

    /// The server holds its connections' sockets, often thousands: git gets none of them (a child
    /// holding a listening socket would keep the port bound after the server ended), and starting it
    /// then does not fail.
    @Test func aGitRunGetsNoneOfTheServersDescriptorsHoweverMany() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("abctl-git-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let held = (0..<3000).map { _ in open("/dev/null", O_RDONLY) }
        defer { for fd in held where fd >= 0 { close(fd) } }
        try #require(held.allSatisfy { $0 >= 0 })
        // The shell git starts for a `!` alias lists its own descriptors (the listing's own is the 3rd).
        let listing = try GitCommand.run(["-c", "alias.fds=!ls /proc/self/fd", "fds"], in: folder, input: Array("unread\n".utf8),
                                         limits: .init(seconds: 20, outputBytes: 1 << 20))
        #expect(listing.status == 0, "\(listing.errorText)")
        let fds = String(decoding: listing.output, as: UTF8.self).split(separator: "\n").compactMap { Int($0) }
        #expect(fds.count == 4 && fds.prefix(3) == [0, 1, 2], "\(fds)")
    }

    @Test func theNextStepIsTheReportsDecisionAsTheEditToTheFile() async throws {
        let browser = try await Self.signedIn()
        // No one exposed yet: the verdict keeps it running, and so does the next step.
        let page = await browser.request("GET", "/experiments/chorus-voice").text
        #expect(page.contains("<section class=\"verdict"))
        #expect(page.contains("<h2>Next step</h2><p>Keep it running: no edit to the file.</p></section>"))

        let running = try #require(browser.server.api.snapshots.snapshot.experimentsByID["chorus-voice"])
        let ship = ConsoleNextStep(Decision(verdict: .ship, winner: "dawn", reasons: []), file: running)
        #expect(ship.edit == #""status": "shipped", "winner": "dawn""#)
        #expect(ship.html.contains("<pre class=\"edit\"><code>&quot;status&quot;: &quot;shipped&quot;, &quot;winner&quot;: &quot;dawn&quot;</code></pre>"))
        let stop = ConsoleNextStep(Decision(verdict: .stop, reasons: []), file: running)
        #expect(stop.edit == #""status": "stopped""#)
        #expect(stop.words.hasPrefix("Stop and keep the control"))
        #expect(ConsoleNextStep(Decision(verdict: .inconclusive, reasons: []), file: running).edit == nil)
        // A winner key is written as JSON and escaped as HTML.
        let odd = ConsoleNextStep(Decision(verdict: .ship, winner: Self.hostile, reasons: []), file: running)
        #expect(!odd.html.contains("<script") && !odd.html.contains("<img"))
        // The file already acted on: no edit asked.
        var shipped = running
        shipped.status = .shipped
        shipped.winner = "dawn"
        #expect(ConsoleNextStep(Decision(verdict: .ship, winner: "dawn", reasons: []), file: shipped).done)
        #expect(!ConsoleNextStep(Decision(verdict: .ship, winner: "dawn", reasons: []), file: shipped).html.contains("<pre"))
    }
}
