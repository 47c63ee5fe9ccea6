import Events
import Foundation
import Synchronization
import Testing
import TestSupport
@testable import Server

/// The console's background slot (`ConsoleRefresher`): an experiment's stored report is computed
/// again when its change counter moved and only then, at most every interval from the stored
/// report's computation; only while the node holds the lease, on a thread of low priority.
@Suite(.timeLimit(.minutes(3)))
struct ConsoleRefreshTests {
    static func refresher(_ server: InProcessServer, interval: Double = 60, isLeader: @escaping @Sendable () -> Bool = { true }) -> ConsoleRefresher {
        ConsoleRefresher(store: server.store, snapshots: server.api.snapshots, reports: server.api.consoleReports,
                         interval: interval, log: server.api.log, isLeader: isLeader)
    }

    static func exposure(_ n: Int) -> Event {
        EventFactory.exposure(EventID("x\(n)"), user: UserID("u\(n)"), experiment: "chorus-voice", variant: "warm", hours: -200)
    }

    static func server() throws -> InProcessServer {
        try InProcessServer(options: { $0.reportClock = Date(timeIntervalSince1970: 1_796_000_000) })
    }

    @Test func aReportIsComputedAgainAfterNewEventsOnlyAndAtMostEveryInterval() async throws {
        let server = try Self.server()
        let refresher = Self.refresher(server)
        let t0 = Date(timeIntervalSince1970: 1_800_000_000)
        // Nothing stored: every experiment, one after another.
        #expect(refresher.refresh(now: t0).sorted() == ConsolePagesTests.experimentIDs)
        _ = try server.store.appendAndWait([Self.exposure(1)])
        // Within the interval of the stored report: not yet.
        #expect(refresher.refresh(now: t0 + 59).isEmpty)
        // Once it has passed: the experiment the event touched, and no other.
        #expect(refresher.refresh(now: t0 + 60) == ["chorus-voice"])
        let stored = try #require(try server.store.consoleReport(experiment: "chorus-voice"))
        #expect(stored.computedAt == Timestamp(t0 + 60))
        #expect(try ConsoleDigest(json: stored.summary).users == 1)
        // No new event: nothing, however long after.
        #expect(refresher.refresh(now: t0 + 10_000).isEmpty)
        _ = try server.store.appendAndWait([Self.exposure(2)])
        #expect(refresher.refresh(now: t0 + 10_001) == ["chorus-voice"])
        #expect(try ConsoleDigest(json: try #require(try server.store.consoleReport(experiment: "chorus-voice")).summary).users == 2)
    }

    @Test func theStoredReportIsThePagesWithItsAsOf() async throws {
        let browser = try await ConsolePagesTests.signedIn()
        let stored = try #require(try browser.server.store.consoleReport(experiment: "chorus-voice"))
        let page = await browser.request("GET", "/experiments/chorus-voice")
        #expect(page.status == 200)
        #expect(page.text.contains("Figures as of \(stored.generatedAt.rfc3339), computed at \(stored.computedAt.rfc3339)"))
        #expect(page.text.contains(stored.body))
        let overview = await browser.request("GET", "/")
        #expect(overview.text.contains(try ConsoleDigest(json: stored.summary).cells))
    }

    @Test func aShareOfTheDefaultParametersShowsTheStoredReport() async throws {
        let browser = try await ConsolePagesTests.signedIn()
        let stored = try #require(try browser.server.store.consoleReport(experiment: "chorus-voice"))
        let link = try await ConsoleShareTests.makeShare(browser, query: "")
        let shared = await ConsoleBrowser(browser.server).request("GET", link)
        #expect(shared.status == 200)
        #expect(shared.text.contains("A shared report, read only, until"))
        #expect(shared.text.contains("Figures as of \(stored.generatedAt.rfc3339), computed at \(stored.computedAt.rfc3339)"))
        #expect(shared.text.contains(stored.body))
    }

    @Test func onlyTheLeaseHolderComputesOnAThreadOfLowPriority() async throws {
        let server = try Self.server()
        let leader = Atomic<Bool>(false)
        let refresher = Self.refresher(server, interval: 0.05, isLeader: { leader.load(ordering: .relaxed) })
        refresher.start()
        defer { refresher.stop() }
        try await Task.sleep(for: .milliseconds(300))
        #expect(try server.store.consoleReports(bodies: false).isEmpty)
        leader.store(true, ordering: .relaxed)
        #expect(await eventually(within: .seconds(60)) { (try? server.store.consoleReports(bodies: false).count) == ConsolePagesTests.experimentIDs.count })
        #expect(refresher.niceness.load(ordering: .relaxed) == LowPriorityThreads.niceness)
    }
}
