import Dispatch
import Events
import Foundation
import Synchronization
import Testing
import TestSupport
@testable import PostgresStore

@Suite struct StickyQueryCoalescerTests {
    /// Answers every lookup with "<user>/<experiment>" and records each batch's users.
    final class Recorder: Sendable {
        let batches = Mutex<[[UserID]]>([])
        let running = Atomic<Int>(0)
        let maxRunning = Atomic<Int>(0)
        let delay: Double

        init(delay: Double = 0) { self.delay = delay }

        func query(_ batch: [StickyQueryCoalescer.Lookup]) -> [[String?]] {
            let now = running.add(1, ordering: .relaxed).newValue
            maxRunning.max(now, ordering: .relaxed)
            batches.withLock { $0.append(batch.map(\.userID)) }
            if delay > 0 { Thread.sleep(forTimeInterval: delay) }
            running.subtract(1, ordering: .relaxed)
            return batch.map { lookup in lookup.experiments.map { "\(lookup.userID)/\($0)" } }
        }
    }

    @Test func anIdleLookupRunsAtOnceOnItsOwn() throws {
        let recorder = Recorder()
        let coalescer = StickyQueryCoalescer(maxInFlight: 1, maxBatch: 8) { recorder.query($0) }
        #expect(try coalescer.lookup(userID: "u", experiments: ["a", "b"]) == ["u/a", "u/b"])
        #expect(recorder.batches.withLock { $0 } == [["u"]])
    }

    /// Under concurrency every caller gets its own answers, fewer queries run than lookups, and
    /// never more than `maxInFlight` at once nor more than `maxBatch` lookups in one.
    @Test(arguments: [1, 2])
    func concurrentLookupsShareQueries(maxInFlight: Int) throws {
        let recorder = Recorder(delay: 0.002)
        let coalescer = StickyQueryCoalescer(maxInFlight: maxInFlight, maxBatch: 5) { recorder.query($0) }
        let wrong = Atomic<Int>(0)
        onThreads(16, each: 25) { i in
            let answer = try? coalescer.lookup(userID: "u\(i)", experiments: ["x", "y\(i % 3)"])
            if answer != ["u\(i)/x", "u\(i)/y\(i % 3)"] { wrong.add(1, ordering: .relaxed) }
        }
        #expect(wrong.load(ordering: .relaxed) == 0)
        let batches = recorder.batches.withLock { $0 }
        #expect(batches.map(\.count).reduce(0, +) == 400)
        #expect(Set(batches.joined()).count == 400)
        #expect(batches.count < 400)
        #expect(batches.allSatisfy { $0.count <= 5 })
        #expect(recorder.maxRunning.load(ordering: .relaxed) <= maxInFlight)
    }

    /// A lookup that arrives while a query runs is never answered by that query (whose snapshot
    /// may predate an exposure acknowledged just before the lookup): it joins the next one.
    @Test func aLookupNeverJoinsAQueryAlreadyRunning() throws {
        let started = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        let batches = Mutex<[[UserID]]>([])
        let coalescer = StickyQueryCoalescer(maxInFlight: 1, maxBatch: 8) { batch in
            batches.withLock { $0.append(batch.map(\.userID)) }
            if batch.first?.userID == "first" {
                started.signal()
                release.wait()
            }
            return batch.map { $0.experiments.map { _ in "v" } }
        }
        let group = DispatchGroup()
        group.onOwnThread { _ = try? coalescer.lookup(userID: "first", experiments: ["e"]) }
        started.wait()
        group.onOwnThread { _ = try? coalescer.lookup(userID: "second", experiments: ["e"]) }
        group.onOwnThread { _ = try? coalescer.lookup(userID: "third", experiments: ["e"]) }
        Thread.sleep(forTimeInterval: 0.05)
        release.signal()
        group.wait()
        let seen = batches.withLock { $0 }
        #expect(seen.first == ["first"])
        #expect(Set(seen.dropFirst().joined()) == ["second", "third"])
    }

    /// Submitted lookups hold no thread: one thread can queue many, and they share queries.
    @Test func submittedLookupsWaitWithoutAThread() throws {
        let recorder = Recorder(delay: 0.01)
        let coalescer = StickyQueryCoalescer(maxInFlight: 1, maxBatch: 64) { recorder.query($0) }
        let done = DispatchGroup()
        let answers = Mutex<[String: [String?]]>([:])
        for i in 0..<100 {
            done.enter()
            coalescer.submit(userID: "u\(i)", experiments: ["e"]) { result in
                answers.withLock { $0["u\(i)"] = try? result.get() }
                done.leave()
            }
        }
        #expect(done.wait(timeout: .now() + 30) == .success)
        #expect(answers.withLock { $0.count } == 100)
        #expect(answers.withLock { $0.allSatisfy { $0.value == ["\($0.key)/e"] } })
        let batches = recorder.batches.withLock { $0 }
        #expect(batches.count < 10, "\(batches.map(\.count))")
        #expect(batches.allSatisfy { $0.count <= 64 })
    }

    @Test func aFailedQueryFailsEveryLookupInIt() throws {
        struct Broken: Error {}
        let coalescer = StickyQueryCoalescer(maxInFlight: 1, maxBatch: 8) { _ in throw Broken() }
        #expect(throws: Broken.self) { try coalescer.lookup(userID: "u", experiments: ["e"]) }
        // The slot is free again: the next lookup runs (and fails) rather than waiting forever.
        #expect(throws: Broken.self) { try coalescer.lookup(userID: "v", experiments: ["e"]) }
    }

    /// On a real database: many threads at once, each user answered with its own records only,
    /// including users whose records share experiments with other users of the same query.
    @Test func sharedQueriesOnPostgreSQLAnswerEachUserAlone() async throws {
        try await withPostgresStore { store, _ in
            var events: [Event] = []
            for u in 0..<50 where u % 2 == 0 {
                events.append(EventFactory.exposure("x", user: "u\(u)", experiment: "A", variant: "a\(u)", hours: 1))
                if u % 4 == 0 { events.append(EventFactory.exposure("y", user: "u\(u)", experiment: "B", variant: "b\(u)", hours: 1)) }
            }
            _ = try await store.append(events)
            let reader = try store.makeStickyReader(maxIdle: 2)
            let wrong = Mutex<[String]>([])
            onThreads(10, each: 50) { i in
                let u = i % 50
                let expected: [String?] = [u % 2 == 0 ? "a\(u)" : nil, u % 4 == 0 ? "b\(u)" : nil, nil]
                let got = try? reader.exposedVariants(experiments: ["A", "B", "C"], userID: "u\(u)")
                if got != expected { wrong.withLock { $0.append("u\(u): \(String(describing: got))") } }
            }
            #expect(wrong.withLock { $0 }.isEmpty, "\(wrong.withLock { $0.prefix(3) })")
            // A user id with NUL can have no record (events refuse it); no query is sent for it.
            #expect(try reader.exposedVariants(experiments: ["A"], userID: "u0\u{0}x") == [nil])
        }
    }

    /// One shared query for two users whose ids differ only in their bytes ("é" composed and
    /// decomposed): each gets its own record, as the database tells them apart.
    @Test func aSharedQueryTellsUsersApartByTheirBytes() async throws {
        try await withPostgresStore { store, url in
            let composed: UserID = "r\u{E9}", decomposed: UserID = "re\u{301}"
            _ = try await store.append([EventFactory.exposure("x", user: composed, experiment: "A", variant: "one", hours: 1)])
            let pool = ConnectionPool(target: try ConnectionTarget(url: url), maxIdle: 1)
            let answers = try PostgresStickyReader.query([(composed, ["A"]), (decomposed, ["A"])], pool: pool)
            #expect(answers == [["one"], [nil]])
        }
    }
}

/// Runs `body(0..<threads * each)` on `threads` threads of their own (more than the cores, so
/// callers really wait together), `each` calls per thread, and returns when all are done.
func onThreads(_ threads: Int, each: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let done = DispatchGroup()
    for t in 0..<threads {
        done.enter()
        Thread.detachNewThread {
            for k in 0..<each { body(t * each + k) }
            done.leave()
        }
    }
    done.wait()
}
