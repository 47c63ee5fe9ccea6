import Dispatch
import Foundation
import Synchronization
import Testing
import Events
import SQLiteStore
import TestSupport

private typealias F = EventFactory

/// Bulk transactions compute facts on a second thread from the snapshot the transaction starts
/// from plus its new events (`SnapshotFacts`); these cases are where that could go wrong.
@Suite struct FactsBesideWriterTests {
    /// Submits `batches` through the bulk path as `abctl ingest` does (at most two not yet taken
    /// by the writer), then flushes.
    private func bulkLoad(_ store: SQLiteEventStore, _ batches: [[Event]], commitEvery: Int) throws -> AppendResult {
        let total = Mutex(AppendResult())
        let done = DispatchGroup()
        let slots = DispatchSemaphore(value: 2)
        for batch in batches {
            slots.wait()
            done.enter()
            store.submitBulk(batch, commitEvery: commitEvery, consumed: { slots.signal() }) { result in
                if case .success(let r) = result { total.withLock { $0 = $0 + r } }
                done.leave()
            }
        }
        try store.flush()
        done.wait()
        return total.withLock { $0 }
    }

    /// Event ids that `String`'s `==` takes for one (canonically equivalent) are two ids to
    /// SQLite, so two events; the facts computed beside the writer must count both.
    @Test func idsAreComparedByTheirBytes() async throws {
        try await withTemporaryStore { store, _ in
            let composed: EventID = "caf\u{E9}", decomposed: EventID = "cafe\u{301}"
            let events = [
                F.exposure("x", user: "u", experiment: "A", variant: "a", hours: 0),
                F.event(composed, .purchased, user: "u", hours: 1, revenue: 10),
                F.event(decomposed, .purchased, user: "u", hours: 2, revenue: 5),
                F.event(composed, .purchased, user: "u", hours: 3, revenue: 99),   // a retry: the first copy stays
            ]
            let result = try bulkLoad(store, [events], commitEvery: 100)
            #expect(result.stored == 3)
            #expect(result.duplicates == 1)
            let facts = try #require(try store.facts(userID: "u").first)
            #expect(facts.netRevenue == 15)
            #expect(try store.facts(userID: "u") == FactsBuilder.facts(userID: "u", events: Array(events.prefix(3))))
        }
    }

    /// One user with many events (past the list `SnapshotFacts` keeps before hashing ids), loaded
    /// over several commits with retries of events from earlier commits and from the same batch
    /// (with other content: the first copy wins), gives the facts of the first copies.
    @Test func aBusyUserAcrossCommitsWithRetries() async throws {
        var rng = SeededGenerator(seed: 7)
        var firstCopies: [Event] = []
        var arrivals: [Event] = []
        for k in 0..<200 {
            let event = k % 50 == 0
                ? F.exposure("e\(k)", user: "busy", experiment: "A", variant: ["a", "b"][k / 50 % 2], hours: Double(k))
                : F.event("e\(k)", [.renewed, .purchased, .refunded, .cancelled].randomElement(using: &rng)!, user: "busy",
                          hours: Double.random(in: -10...300, using: &rng), revenue: Double(k))
            firstCopies.append(event)
            arrivals.append(event)
            if k % 7 == 3 {
                // A retry with other content, soon or much later.
                let earlier = firstCopies[Int.random(in: 0..<firstCopies.count, using: &rng)]
                arrivals.append(F.event(earlier.id, .purchased, user: "busy", hours: 1, revenue: 1000))
            }
            arrivals.append(F.event("other\(k)", .purchased, user: "other\(k % 13)", hours: 1, revenue: 1))
        }
        let batches = stride(from: 0, to: arrivals.count, by: 37).map { Array(arrivals[$0..<min($0 + 37, arrivals.count)]) }
        try await withTemporaryStore { store, _ in
            let result = try bulkLoad(store, batches, commitEvery: 40)
            #expect(store.transactionsCommitted > 3)
            #expect(result.stored + result.duplicates == arrivals.count)
            #expect(result.duplicates == arrivals.count - firstCopies.count - 200)
            #expect(try store.facts(userID: "busy") == FactsBuilder.facts(userID: "busy", events: firstCopies))
            #expect(try store.facts(userID: "busy").count == 1)
        }
    }

    /// Readers running during a bulk load see, in every snapshot, facts equal to those built
    /// from that snapshot's own events: facts and events are committed together.
    @Test func readersNeverSeeFactsAheadOrBehindTheEvents() async throws {
        var rng = SeededGenerator(seed: 11)
        var events: [Event] = []
        for u in 0..<2000 {
            events.append(F.exposure("x\(u)", user: "u\(u)", experiment: "A", variant: ["a", "b"][u % 2], hours: Double(u)))
            for k in 0..<4 {
                events.append(F.event("p\(u)-\(k)", .renewed, user: "u\(u)", hours: Double(u + k), revenue: 1))
            }
        }
        events.shuffle(using: &rng)
        let batches = stride(from: 0, to: events.count, by: 50).map { Array(events[$0..<min($0 + 50, events.count)]) }
        try await withTemporaryStore { store, _ in
            let stop = Atomic(false)
            let mismatches = Atomic(0), checks = Atomic(0), failures = Atomic(0)
            let started = DispatchSemaphore(value: 0), finished = DispatchSemaphore(value: 0)
            // A thread of its own: the shared pools may be busy with other tests.
            let reader = Thread {
                var first = true
                while !stop.load(ordering: .acquiring) {
                    // One snapshot: the user's events and facts come from the same read.
                    let u: UserID = "u\(Int.random(in: 0..<2000))"
                    do {
                        let (stored, facts) = try store.eventsAndFacts(userID: u)
                        if facts != FactsBuilder.facts(userID: u, events: stored) { mismatches.add(1, ordering: .relaxed) }
                        checks.add(1, ordering: .relaxed)
                    } catch {
                        failures.add(1, ordering: .relaxed)
                    }
                    if first { started.signal(); first = false }
                }
                finished.signal()
            }
            reader.start()
            started.wait()
            let before = checks.load(ordering: .relaxed)
            _ = try bulkLoad(store, batches, commitEvery: 300)
            let during = checks.load(ordering: .relaxed) - before
            stop.store(true, ordering: .releasing)
            finished.wait()
            print("reads during the load: \(during), in \(store.transactionsCommitted) commits")
            #expect(during > 0)
            #expect(failures.load(ordering: .relaxed) == 0)
            #expect(mismatches.load(ordering: .relaxed) == 0)
        }
    }
}
