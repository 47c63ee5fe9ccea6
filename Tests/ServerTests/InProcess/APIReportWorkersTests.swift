import Dispatch
import Foundation
import Synchronization
import Testing
@testable import Server

/// Reports are computed off the request threads, at most two at once per node: a third is refused
/// at once with 503 and `Retry-After`, and is answered again once a slot is free.
@Suite struct APIReportWorkersTests {
    @Test func aReportBeyondTheBoundIsRefusedWithRetryAfter() async throws {
        let server = try InProcessServer()
        let workers = server.api.reports
        #expect(workers.width == 2)
        let release = DispatchSemaphore(value: 0), finished = DispatchSemaphore(value: 0)
        for _ in 0..<workers.width {
            let started = workers.run({ release.wait() }, done: { _ in finished.signal() })
            #expect(started)
        }
        let busy = await server.request("GET", "/v1/experiments/chorus-trial-length/report")
        #expect(busy.status == 503, "\(busy.text)")
        #expect(busy.headers["retry-after"] == "5")
        #expect(busy.text.contains(#""code":"reports_busy""#), "\(busy.text)")
        for _ in 0..<workers.width { release.signal() }
        for _ in 0..<workers.width { finished.wait() }
        let report = await server.request("GET", "/v1/experiments/chorus-trial-length/report")
        #expect(report.status == 200, "\(report.text)")
        #expect(workers.busy == 0)
    }

    /// On Linux a dispatch queue's quality of service leaves a thread's nice as it is, so the
    /// report threads must lower their own: what is measured is the kernel's value on that thread.
    @Test func reportsRunOnThreadsOfLowerPriorityThanTheCaller() throws {
        let server = try InProcessServer()
        let workers = server.api.reports
        let caller = LowPriorityThreads.currentNiceness()
        let seen = Mutex<Int32?>(nil), finished = DispatchSemaphore(value: 0)
        let started = workers.run({ LowPriorityThreads.currentNiceness() }, done: { nice in
            seen.withLock { $0 = nice }
            finished.signal()
        })
        #expect(started)
        finished.wait()
        let reportNice = seen.withLock { $0 }
        #expect(reportNice == max(caller, LowPriorityThreads.niceness), "caller \(caller), report thread \(String(describing: reportNice))")
        #expect(LowPriorityThreads.currentNiceness() == caller, "the caller's own priority is left alone")
    }
}
