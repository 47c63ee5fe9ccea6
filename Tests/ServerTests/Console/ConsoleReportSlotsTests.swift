import Dispatch
import Foundation
import Testing
@testable import Server

/// The console's reports are computed off the request threads: the page of every experiment on a
/// background slot of its own (showing the figures kept from before while it is busy), an
/// experiment's page on the API's report threads (503 with `Retry-After` beyond their bound).
@Suite(.timeLimit(.minutes(2)))
struct ConsoleReportSlotsTests {
    static func hold(_ workers: ReportWorkers) -> (release: @Sendable () -> Void, wait: @Sendable () -> Void) {
        let release = DispatchSemaphore(value: 0), finished = DispatchSemaphore(value: 0)
        for _ in 0..<workers.width { _ = workers.run({ release.wait() }, done: { _ in finished.signal() }) }
        return ({ for _ in 0..<workers.width { release.signal() } }, { for _ in 0..<workers.width { finished.wait() } })
    }

    @Test func theOverviewUsesItsOwnSlotAndKeptFiguresWhileItIsBusy() async throws {
        let browser = try await ConsolePagesTests.signedIn()
        let api = browser.server.api
        #expect(api.consoleReports.background.width == 1)
        // The API's report threads busy: the overview does not need them.
        let apiHeld = Self.hold(api.reports)
        var slot = Self.hold(api.consoleReports.background)
        let first = await browser.request("GET", "/")
        #expect(first.status == 503)
        #expect(first.headers["retry-after"] == "5")
        ConsoleSignInTests.expectConsoleHeaders(first)
        slot.release(); slot.wait()
        #expect(await browser.request("GET", "/").status == 200)
        // An experiment's page beyond the API's bound: 503 with Retry-After.
        let busy = await browser.request("GET", "/experiments/chorus-voice")
        #expect(busy.status == 503)
        #expect(busy.headers["retry-after"] == "5")
        apiHeld.release(); apiHeld.wait()
        #expect(await browser.request("GET", "/experiments/chorus-voice").status == 200)
        // Busy again: the figures kept from before.
        slot = Self.hold(api.consoleReports.background)
        let kept = await browser.request("GET", "/")
        #expect(kept.status == 200)
        #expect(kept.text.contains("chorus-voice"))
        slot.release(); slot.wait()
    }
}
