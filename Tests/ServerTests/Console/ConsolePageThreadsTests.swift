import Dispatch
import Foundation
import HTTPTransport
import Synchronization
import Testing
import TestSupport
@testable import Server

/// The console's pages never take a core from `/v1/assign` at its priority: every page that reads
/// the store or builds HTML is answered on the console's threads of lower priority (nice 10, as
/// the kernel holds it), at most as many at once as they take and queue, beyond that a 503 page
/// with `Retry-After`; the files' git histories are read at that priority too.
@Suite(.timeLimit(.minutes(3)))
struct ConsolePageThreadsTests {
    /// The nice values the holding jobs saw on their threads.
    final class Seen: Sendable {
        let values = Mutex<[Int32]>([])
    }

    /// Occupies every thread of `threads` with a job that waits for `release`, each first noting
    /// its thread's nice; returns once all of them run.
    static func hold(_ threads: LowPriorityThreads, seen: Seen) -> DispatchSemaphore {
        let release = DispatchSemaphore(value: 0), running = DispatchSemaphore(value: 0)
        for _ in 0..<threads.width {
            #expect(threads.run {
                seen.values.withLock { $0.append(LowPriorityThreads.currentNiceness()) }
                running.signal()
                release.wait()
            })
        }
        for _ in 0..<threads.width { running.wait() }
        return release
    }

    @Test func aPagesWorkRunsOnAThreadOfLowerPriorityThanTheRequestThread() async throws {
        let server = try InProcessServer()
        let caller = LowPriorityThreads.currentNiceness()
        let pageNice = Mutex<Int32?>(nil), requestNice = Mutex<Int32?>(nil)
        let page = ConsoleOffRequestThread(threads: server.api.consolePages, route: "/probe", log: server.api.log,
                                           page: ClosureResponder { _ in
            pageNice.withLock { $0 = LowPriorityThreads.currentNiceness() }
            return .response(ConsolePage.message(200, title: "Probe", "read"))
        })
        let answered = DispatchSemaphore(value: 0)
        let status = Mutex(0)
        // The request thread, as the daemon's: it hands the request over and sends what comes back.
        Thread {
            requestNice.withLock { $0 = LowPriorityThreads.currentNiceness() }
            guard case .deferred(let start) = try? page.respond(to: APIRequest(HTTPRequest(method: "GET", path: "/probe", query: nil, headers: [], body: []))) else {
                answered.signal()
                return
            }
            start { response in
                status.withLock { $0 = response.status }
                answered.signal()
            }
        }.start()
        answered.wait()
        #expect(status.withLock { $0 } == 200)
        #expect(requestNice.withLock { $0 } == caller)
        #expect(pageNice.withLock { $0 } == max(caller, LowPriorityThreads.niceness),
                "request thread \(caller), page \(String(describing: pageNice.withLock { $0 }))")
    }

    @Test func everyPageThatReadsTheStoreWaitsForTheConsolesThreads() async throws {
        let browser = try await ConsolePagesTests.signedIn()
        let link = try await ConsoleShareTests.makeShare(browser, query: "")
        let page = await browser.request("GET", "/experiments/chorus-voice")
        let token = try #require(ConsoleBrowser.formToken(page.text))
        let threads = browser.server.api.consolePages
        let seen = Seen()
        let release = Self.hold(threads, seen: seen)
        let targets = ["/", "/experiments/chorus-voice", "/experiments/chorus-voice?alpha=0.1", "/placements", link]
        async let pages = withTaskGroup(of: (String, Int).self) { group in
            for target in targets { group.addTask { (target, await browser.request("GET", target).status) } }
            group.addTask { ("POST /experiments/chorus-voice/share", await browser.request("POST", "/experiments/chorus-voice/share",
                                                                                          form: [("form_token", token), ("parameters", "")]).status) }
            return await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
        // Each waits in the threads' queue: none is answered on its request thread.
        #expect(await eventually(within: .seconds(60)) { threads.busy == threads.width + targets.count + 1 })
        for _ in 0..<threads.width { release.signal() }
        let statuses = await pages
        for target in targets { #expect(statuses[target] == 200, "\(target)") }
        #expect(statuses["POST /experiments/chorus-voice/share"] == 303)
        let caller = LowPriorityThreads.currentNiceness()
        #expect(seen.values.withLock { $0 } == Array(repeating: max(caller, LowPriorityThreads.niceness), count: threads.width))
    }

    @Test func beyondTheBoundAPageIsTheBusyPageWithRetryAfter() async throws {
        let browser = try await ConsolePagesTests.signedIn()
        let threads = browser.server.api.consolePages
        let seen = Seen()
        let release = Self.hold(threads, seen: seen)
        for _ in 0..<threads.waiting { #expect(threads.run { release.wait() }) }
        let busy = await browser.request("GET", "/")
        #expect(busy.status == 503)
        #expect(busy.headers["retry-after"] == String(threads.retryAfterSeconds))
        #expect(busy.headers["content-type"] == "text/html; charset=utf-8")
        ConsoleSignInTests.expectConsoleHeaders(busy)
        #expect(busy.text.contains("<h1>Busy</h1>"))
        #expect(busy.text.contains("retry in \(threads.retryAfterSeconds) s"))
        for _ in 0..<(threads.width + threads.waiting) { release.signal() }
        #expect(await eventually(within: .seconds(60)) { threads.busy == 0 })
        #expect(await browser.request("GET", "/").status == 200)
    }

    @Test func theFilesHistoriesAreReadAtLowPriority() {
        let caller = LowPriorityThreads.currentNiceness()
        let seen = Mutex<Int32?>(nil), read = DispatchSemaphore(value: 0)
        let histories = ConsoleFileHistories(refreshSeconds: 60, log: Log(fd: -1), reader: { _ in
            seen.withLock { $0 = LowPriorityThreads.currentNiceness() }
            read.signal()
            return .unavailable("no git here")
        })
        #expect(histories.history(path: "Experiments/a.json", contents: Array("{}".utf8)) == nil)
        read.wait()
        #expect(seen.withLock { $0 } == max(caller, LowPriorityThreads.niceness), "caller \(caller)")
        #expect(LowPriorityThreads.currentNiceness() == caller)
    }
}
