import Foundation
import Testing
import Events
@testable import SQLiteStore
import TestSupport

private typealias F = EventFactory

@Test func duplicatesAreStoredOnceAndCounted() async throws {
    try await withTemporaryStore { store, _ in
        let first = try await store.append([
            F.exposure("d1", user: "u", experiment: "E", variant: "v", hours: 0),
            F.event("d2", .purchased, user: "u", hours: 1, revenue: 10),
            F.event("d2", .purchased, user: "u", hours: 1, revenue: 10),     // repeated within the batch
        ])
        #expect(first == AppendResult(stored: 2, duplicates: 1))
        let again = try await store.append([
            F.event("d2", .purchased, user: "u", hours: 1, revenue: 10),
            F.event("d3", .renewed, user: "u", hours: 2, revenue: 10),
        ])
        #expect(again == AppendResult(stored: 1, duplicates: 1))
        #expect(try store.counts().events == 3)
        #expect(try store.facts(experiment: "E").first?.netRevenue == 20)
        // A retry with the same id but different content does not replace the stored event.
        _ = try await store.append([F.event("d3", .renewed, user: "u", hours: 2, revenue: 999)])
        #expect(try store.facts(experiment: "E").first?.netRevenue == 20)
    }
}

@Test func eventsRoundTrip() async throws {
    try await withTemporaryStore { store, _ in
        let events = [
            Event(id: "rt1", type: .exposure, userID: "ü", timestamp: Timestamp(microseconds: 1_796_119_200_123_456),
                  experiment: "E", variant: "v", copySource: .template, copyText: "Hi, Birder", copyFallbackReason: nil),
            Event(id: "rt2", type: .converted, userID: "ü", timestamp: Timestamp(microseconds: 1_796_119_300_000_000),
                  revenue: 59.99, currency: "USD", productID: "chorus.plus.annual"),
        ]
        _ = try await store.append(events)
        #expect(try store.events(userID: "ü") == events)
    }
}

@Test func newerSchemaIsRefusedAndCurrentReopens() async throws {
    try await withTemporaryDirectory { dir in
        let path = dir.path("db.sqlite")
        do {
            let store = try SQLiteEventStore(path: path)
            _ = try store.appendAndWait([F.exposure("k1", user: "u", experiment: "E", variant: "v", hours: 0)])
            store.close()
        }
        // Reopening the same version keeps the data and applies nothing twice.
        do {
            let store = try SQLiteEventStore(path: path)
            #expect(try store.counts().events == 1)
            store.close()
        }
        let raw = try Connection(path: path, readOnly: false)
        #expect(try raw.scalarInt("SELECT MAX(version) FROM schema_migrations") == Int64(SQLiteEventStore.schemaVersion))
        try raw.execute("INSERT INTO schema_migrations VALUES (\(SQLiteEventStore.schemaVersion + 1), 'from the future', '2030-01-01T00:00:00Z')")
        #expect {
            _ = try SQLiteEventStore(path: path)
        } throws: { error in
            guard let e = error as? StoreError, case .schemaTooNew(let found, let supported) = e.kind else { return false }
            return found == SQLiteEventStore.schemaVersion + 1 && supported == SQLiteEventStore.schemaVersion
                && e.description.contains("newer than this abctl supports")
        }
    }
}

@Test func notADatabaseIsAClearError() async throws {
    try await withTemporaryDirectory { dir in
        let path = dir.path("junk.sqlite")
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: path))
        #expect {
            _ = try SQLiteEventStore(path: path)
        } throws: { error in
            (error as? StoreError)?.description.contains("not a database") == true
        }
    }
}

@Test func freshDatabaseIsInWALModeAndSound() async throws {
    try await withTemporaryStore { store, dir in
        let raw = try Connection(path: store.path, readOnly: true)
        #expect(try raw.scalarText("PRAGMA journal_mode") == "wal")
        #expect(try store.integrityCheck() == "ok")
        _ = dir
    }
}

@Test func concurrentWritersShareTransactions() async throws {
    try await withTemporaryStore { store, _ in
        let writers = 40, perWriter = 25
        let before = store.transactionsCommitted
        let results = try await withThrowingTaskGroup(of: AppendResult.self) { group in
            for w in 0..<writers {
                group.addTask {
                    var total = AppendResult()
                    for i in 0..<perWriter {
                        total = total + (try await store.append([
                            F.exposure("w\(w)-\(i)", user: "user\(w)", experiment: "E", variant: "v", hours: Double(i)),
                            F.event("w\(w)-\(i)-p", .renewed, user: "user\(w)", hours: Double(i), revenue: 1),
                        ]))
                    }
                    return total
                }
            }
            return try await group.reduce(AppendResult(), +)
        }
        #expect(results == AppendResult(stored: writers * perWriter * 2, duplicates: 0))
        #expect(try store.counts() == StoreCounts(events: writers * perWriter * 2, facts: writers, experiments: 1))
        for f in try store.facts(experiment: "E") { #expect(f.netRevenue == Double(perWriter)) }
        let transactions = store.transactionsCommitted - before
        #expect(transactions <= writers * perWriter)
        print("concurrent writers: \(writers * perWriter) appends in \(transactions) transactions")
    }
}

@Test func queuedAppendsAreGroupedIntoOneTransaction() async throws {
    try await withTemporaryStore { store, _ in
        // Keep the writer busy with a large batch, then queue many small ones behind it:
        // they must commit together, in far fewer transactions than appends.
        let big = (0..<20_000).map { F.exposure("big\($0)", user: "bu\($0)", experiment: "E", variant: "v", hours: 0) }
        let before = store.transactionsCommitted
        let done = AsyncStream<Result<AppendResult, any Error>>.makeStream()
        store.submit(big) { done.continuation.yield($0) }
        let small = 50
        for i in 0..<small {
            store.submit([F.event("s\(i)", .renewed, user: "su\(i)", hours: 1, revenue: 1)]) { done.continuation.yield($0) }
        }
        var acknowledged = 0
        for await result in done.stream {
            _ = try result.get()
            acknowledged += 1
            if acknowledged == small + 1 { break }
        }
        let transactions = store.transactionsCommitted - before
        #expect(transactions < 5, "51 appends took \(transactions) transactions")
        #expect(try store.counts().events == 20_000 + small)
    }
}

@Test func readersRunInParallelWithTheWriter() async throws {
    try await withTemporaryStore { store, _ in
        _ = try await store.append((0..<100).map { F.exposure("p\($0)", user: "u\($0)", experiment: "E", variant: "v", hours: 0) })
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for i in 0..<50 {
                    _ = try await store.append([F.exposure("q\(i)", user: "v\(i)", experiment: "E", variant: "v", hours: 0)])
                }
            }
            for _ in 0..<4 {
                group.addTask {
                    for _ in 0..<50 {
                        let n = try store.facts(experiment: "E").count
                        #expect(n >= 100 && n <= 150)   // a consistent snapshot, never partial
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try store.facts(experiment: "E").count == 150)
    }
}

@Test func appendAfterCloseFails() async throws {
    try await withTemporaryStore { store, _ in
        store.close()
        #expect(throws: StoreError.self) {
            _ = try store.appendAndWait([F.event("z", .renewed, user: "u", hours: 0)])
        }
    }
}

@Test func bulkAppendsAcknowledgeOnlyAfterCommit() async throws {
    try await withTemporaryStore { store, _ in
        let acknowledged = AsyncStream<Int>.makeStream()
        let consumed = AsyncStream<Int>.makeStream()
        for i in 0..<3 {
            let batch = (0..<10).map { F.exposure("bk\(i)-\($0)", user: "u\(i)-\($0)", experiment: "E", variant: "v", hours: 0) }
            store.submitBulk(batch, commitEvery: 1000, consumed: { consumed.continuation.yield(i) }) { result in
                if case .success = result { acknowledged.continuation.yield(i) }
            }
        }
        var taken = 0
        for await _ in consumed.stream { taken += 1; if taken == 3 { break } }
        // Consumed but below the commit threshold: nothing visible to readers, nothing acknowledged.
        #expect(try store.counts().events == 0)
        try store.flush()
        var acks = 0
        for await _ in acknowledged.stream { acks += 1; if acks == 3 { break } }
        #expect(try store.counts().events == 30)
        #expect(try store.facts(experiment: "E").count == 30)
    }
}

/// Makes any insert of event id "boom" fail inside SQLite, to test what a failed batch leaves behind.
private func installFailingTrigger(_ path: String) throws {
    let raw = try Connection(path: path, readOnly: false)
    try raw.execute("""
        CREATE TRIGGER fail_boom BEFORE INSERT ON events WHEN NEW.event_id = 'boom'
        BEGIN SELECT RAISE(ABORT, 'injected failure'); END
        """)
}

@Test func aFailedAppendLeavesNothingAndSparesItsGroup() async throws {
    try await withTemporaryStore { store, _ in
        try installFailingTrigger(store.path)
        let outcomes = AsyncStream<(String, Bool)>.makeStream()
        // Queue behind a large batch so all three share one transaction.
        let big = (0..<5000).map { F.exposure("g\($0)", user: "g\($0)", experiment: "E", variant: "v", hours: 0) }
        store.submit(big) { outcomes.continuation.yield(("big", (try? $0.get()) != nil)) }
        store.submit([F.exposure("ok1", user: "a", experiment: "E", variant: "v", hours: 0),
                      F.event("boom", .renewed, user: "a", hours: 1, revenue: 5)]) { outcomes.continuation.yield(("bad", (try? $0.get()) != nil)) }
        store.submit([F.exposure("ok2", user: "b", experiment: "E", variant: "v", hours: 0)]) { outcomes.continuation.yield(("good", (try? $0.get()) != nil)) }
        var seen: [String: Bool] = [:]
        for await (name, ok) in outcomes.stream {
            seen[name] = ok
            if seen.count == 3 { break }
        }
        #expect(seen == ["big": true, "bad": false, "good": true])
        #expect(try store.events(userID: "a").isEmpty)          // nothing of the failed batch
        #expect(try store.facts(userID: "a").isEmpty)
        #expect(try ExposureLookup(store: store, maxIdle: 1).exposedVariant(experiment: "E", userID: "b") == "v")
        #expect(try store.counts().events == 5001)
    }
}

@Test func aFailedBulkBatchFailsTheHeldLoad() async throws {
    try await withTemporaryStore { store, _ in
        try installFailingTrigger(store.path)
        let outcomes = AsyncStream<Bool>.makeStream()
        store.submitBulk([F.exposure("k1", user: "k", experiment: "E", variant: "v", hours: 0)], commitEvery: 100, consumed: {}) {
            outcomes.continuation.yield((try? $0.get()) != nil)
        }
        store.submitBulk([F.event("boom", .renewed, user: "k", hours: 1)], commitEvery: 100, consumed: {}) {
            outcomes.continuation.yield((try? $0.get()) != nil)
        }
        // Held below the threshold until a flush commits them; the flush's own (empty) request succeeds.
        try store.flush()
        var results: [Bool] = []
        for await ok in outcomes.stream {
            results.append(ok)
            if results.count == 2 { break }
        }
        #expect(results == [false, false])
        #expect(try store.counts().events == 0)
        // The store keeps working afterwards.
        #expect(try store.appendAndWait([F.exposure("k2", user: "k", experiment: "E", variant: "v", hours: 0)]).stored == 1)
    }
}
