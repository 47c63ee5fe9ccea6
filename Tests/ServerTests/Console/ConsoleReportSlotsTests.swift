import Dispatch
import Foundation
import Testing
@testable import Server

/// The console's pages and the API's report threads: the overview and an experiment's page with
/// the default parameters read the stored figures and need no report thread; a page asked with
/// other parameters computes on them, and beyond their bound shows the stored figures with a
/// line saying so (503 with `Retry-After` when none are stored yet).
@Suite(.timeLimit(.minutes(2)))
struct ConsoleReportSlotsTests {
    static func hold(_ workers: LowPriorityThreads) -> (release: @Sendable () -> Void, wait: @Sendable () -> Void) {
        let release = DispatchSemaphore(value: 0), finished = DispatchSemaphore(value: 0)
        for _ in 0..<workers.width { _ = workers.run({ release.wait() }, done: { _ in finished.signal() }) }
        return ({ for _ in 0..<workers.width { release.signal() } }, { for _ in 0..<workers.width { finished.wait() } })
    }

    @Test func beyondTheBoundAPageShowsTheStoredFiguresAndSaysSo() async throws {
        let browser = try await ConsolePagesTests.signedIn()
        let api = browser.server.api
        let held = Self.hold(api.reports)
        let overview = await browser.request("GET", "/")
        #expect(overview.status == 200)
        #expect(ConsolePagesTests.verdictCells(overview.text).count == ConsolePagesTests.experimentIDs.count)
        let stored = await browser.request("GET", "/experiments/chorus-voice")
        #expect(stored.status == 200)
        #expect(stored.text.contains("Figures as of "))
        #expect(stored.text.contains("<section class=\"verdict"))
        let asked = await browser.request("GET", "/experiments/chorus-voice?alpha=0.1")
        #expect(asked.status == 200)
        ConsoleSignInTests.expectConsoleHeaders(asked)
        #expect(asked.text.contains("This server is computing 2 reports already, so these are the stored figures with the default parameters"))
        #expect(asked.text.contains("name=\"alpha\" value=\"0.1\""))
        #expect(!asked.text.contains("90% intervals"))
        held.release(); held.wait()
        let computed = await browser.request("GET", "/experiments/chorus-voice?alpha=0.1")
        #expect(computed.status == 200)
        #expect(computed.text.contains("90% intervals"))
        #expect(!computed.text.contains("stored figures"))
    }

    @Test func withNothingStoredTheOverviewSaysSoAndABusyPageIs503() async throws {
        let server = try InProcessServer(options: {
            $0.keys = try APIKeys.parse(environment: ConsoleSignInTests.keys)
            $0.reportClock = Date(timeIntervalSince1970: 1_796_000_000)
        })
        let browser = ConsoleBrowser(server)
        #expect(await browser.signIn(ConsoleSignInTests.reportKey).status == 303)
        let held = Self.hold(server.api.reports)
        let overview = await browser.request("GET", "/")
        #expect(overview.status == 200)
        #expect(overview.text.components(separatedBy: "No figures stored yet").count == ConsolePagesTests.experimentIDs.count + 1)
        let busy = await browser.request("GET", "/experiments/chorus-voice")
        #expect(busy.status == 503)
        #expect(busy.headers["retry-after"] == "5")
        held.release(); held.wait()
        // Free again: computed for the page (nothing is stored by a page).
        let page = await browser.request("GET", "/experiments/chorus-voice")
        #expect(page.status == 200)
        #expect(!page.text.contains("Figures as of "))
        #expect(try server.store.consoleReports(bodies: false).isEmpty)
    }
}
