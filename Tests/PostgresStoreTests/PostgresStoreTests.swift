import Events
import SQLiteStore
import Foundation
import PostgresStore
import Synchronization
import Testing
import TestSupport

@Suite("PostgresEventStore") struct PostgresStoreTests {
    @Test func factsEqualWhatFactsBuilderMakesOfEveryUsersEvents() async throws {
        try await withPostgresStore { store, _ in
            let events = randomEvents(users: 60, perUser: 1...12, seed: 7)
            var rng = SeededGenerator(seed: 8)
            // Arrive shuffled, in small chunks, with every fifth event sent again.
            let sent = (events + events.enumerated().filter { $0.offset % 5 == 0 }.map(\.element)).shuffled(using: &rng)
            var totals = AppendResult()
            var rest = sent[...]
            while !rest.isEmpty {
                let n = Int.random(in: 1...9, using: &rng)
                totals = totals + (try await store.append(Array(rest.prefix(n))))
                rest = rest.dropFirst(n)
            }
            #expect(totals.stored == events.count)
            #expect(totals.duplicates == sent.count - events.count)
            let expected = expectedFacts(events)
            for (user, facts) in expected {
                #expect(try store.facts(userID: user) == facts, "user \(user)")
            }
            #expect(try store.counts().events == events.count)
            #expect(try store.counts().facts == expected.values.reduce(0) { $0 + $1.count })
        }
    }

    /// A file with a retried line, or a client resending: of two copies of an event in flight
    /// at once on one node, in different transactions, the one submitted first is stored.
    @Test func ofTwoCopiesInFlightTheOneSubmittedFirstIsStored() async throws {
        try await withPostgresStore(options: .init(writers: 4, maxEventsPerTransaction: 50)) { store, _ in
            // Batch k holds 50 users' exposures and a later copy (another variant, an hour on)
            // of one exposure of batch k - 1, so consecutive transactions race on one event.
            var batches: [[Event]] = []
            for k in 0..<60 {
                var batch = (0..<49).map { i in
                    EventFactory.exposure("e", user: "b\(k)-\(i)", experiment: "A", variant: "first", hours: 0)
                }
                if k > 0 { batch.insert(EventFactory.exposure("e", user: "b\(k - 1)-\(k % 49)", experiment: "A", variant: "second", hours: 1), at: 0) }
                batches.append(batch)
            }
            let totals = Mutex(AppendResult())
            let answered = DispatchGroup()
            for batch in batches {
                answered.enter()
                store.submit(batch) { result in
                    if case .success(let r) = result { totals.withLock { $0 = $0 + r } }
                    answered.leave()
                }
            }
            answered.wait()
            #expect(totals.withLock { $0 } == AppendResult(stored: 60 * 49, duplicates: 59))
            for k in 0..<59 {
                let user: UserID = "b\(k)-\((k + 1) % 49)"
                let stored = try store.events(userID: user).map(\.variant)
                let facts = try store.facts(userID: user).map(\.variant)
                #expect(stored == ["first"], "batch \(k)")
                #expect(facts == ["first"], "batch \(k)")
            }
        }
    }

    @Test func theSameEventIDUnderAnotherUserIsAnotherEvent() async throws {
        try await withPostgresStore { store, _ in
            let first = try await store.append([
                EventFactory.exposure("e1", user: "u1", experiment: "A", variant: "control", hours: 0),
                EventFactory.exposure("e1", user: "u2", experiment: "A", variant: "treatment", hours: 0),
                EventFactory.exposure("e1", user: "u1", experiment: "A", variant: "treatment", hours: 1),
            ])
            #expect(first == AppendResult(stored: 2, duplicates: 1))
            #expect(try await store.append([EventFactory.exposure("e1", user: "u2", experiment: "A", variant: "control", hours: 5)])
                    == AppendResult(stored: 0, duplicates: 1))
            #expect(try store.exposedVariant(experiment: "A", userID: "u1") == "control")
            #expect(try store.exposedVariant(experiment: "A", userID: "u2") == "treatment")
            #expect(try store.exposedVariant(experiment: "B", userID: "u2") == nil)
        }
    }

    @Test func stickyRecordIsSeenByAnotherStoreRightAfterTheAcknowledgement() async throws {
        try await withPostgresStore { nodeA, url in
            let nodeB = try PostgresEventStore(url: url)
            defer { nodeB.close() }
            for i in 0..<20 {
                #expect(try nodeB.exposedVariant(experiment: "A", userID: "s\(i)") == nil)
                _ = try nodeA.appendAndWait([EventFactory.exposure("x", user: "s\(i)", experiment: "A", variant: "v\(i)", hours: 0)])
                #expect(try nodeB.exposedVariant(experiment: "A", userID: "s\(i)") == "v\(i)")
            }
        }
    }

    @Test func factsStayExactUnderConcurrentWritersOnTwoStores() async throws {
        try await withPostgresStore { nodeA, url in
            let nodeB = try PostgresEventStore(url: url)
            defer { nodeB.close() }
            let events = randomEvents(users: 600, perUser: 2...15, seed: 11)
            var rng = SeededGenerator(seed: 12)
            // Every event is sent twice, each copy to a random node, from 16 threads at once: a
            // user's events race through both stores. Most batches are small (a lock per user);
            // every tenth holds hundreds of users (locks on whole hash buckets).
            let sent = (events + events).shuffled(using: &rng)
            var batches: [[Event]] = []
            var rest = sent[...]
            while !rest.isEmpty {
                let n = batches.count % 10 == 9 ? 700 : 7
                batches.append(Array(rest.prefix(n)))
                rest = rest.dropFirst(n)
            }
            let chunks = batches
            let stores = [nodeA, nodeB]
            let totals = try await withThrowingTaskGroup(of: AppendResult.self) { group in
                for thread in 0..<16 {
                    group.addTask {
                        var total = AppendResult()
                        for (index, chunk) in chunks.enumerated() where index % 16 == thread {
                            total = total + (try await stores[(index / 16) % 2].append(chunk))
                        }
                        return total
                    }
                }
                return try await group.reduce(AppendResult(), +)
            }
            #expect(totals.stored == events.count)
            #expect(totals.duplicates == events.count)
            let expected = expectedFacts(events)
            for (user, facts) in expected {
                #expect(try nodeB.facts(userID: user) == facts, "user \(user)")
            }
            #expect(try nodeA.counts().events == events.count)
        }
    }

    @Test func factsAndRevenueReadsMatchTheSQLiteStore() async throws {
        // Event ids unique across users: main's SQLite store still keeps event_id unique on its own.
        let events = randomEvents(users: 150, perUser: 1...10, seed: 21, globalIDs: true)
        try await withPostgresStore { postgres, _ in
            try await withTemporaryStore { sqlite, _ in
                for start in stride(from: 0, to: events.count, by: 50) {
                    let chunk = Array(events[start..<min(start + 50, events.count)])
                    let fromPostgres = try await postgres.append(chunk)
                    let fromSQLite = try await sqlite.append(chunk)
                    #expect(fromPostgres == fromSQLite)
                }
                let since = EventFactory.at(10), until = EventFactory.at(60), asOf = EventFactory.at(50)
                for experiment in ["A", "B"] {
                    let all = (try postgres.facts(experiment: experiment), try sqlite.facts(experiment: experiment))
                    #expect(all.0 == all.1)
                    #expect(all.0.count > 10)
                    let bounded = (try postgres.facts(experiment: experiment, since: since, until: until),
                                   try sqlite.facts(experiment: experiment, since: since, until: until))
                    #expect(bounded.0 == bounded.1)
                    let revenue = (try postgres.netRevenue(experiment: experiment, asOf: asOf, since: nil, until: nil),
                                   try sqlite.netRevenue(experiment: experiment, asOf: asOf, since: nil, until: nil))
                    #expect(revenue.0 == revenue.1)
                    #expect(!revenue.0.isEmpty)
                }
                let summaries = (try postgres.experiments(), try sqlite.experiments())
                #expect(summaries.0 == summaries.1)
            }
        }
    }

    @Test func copyLinesAreCachedAndReplaced() async throws {
        try await withPostgresStore { store, _ in
            #expect(try store.cachedCopyLine(experiment: "A", variant: "ai", brief: "b") == nil)
            try store.saveCopyLine("First.", experiment: "A", variant: "ai", brief: "b", at: EventFactory.at(0))
            try store.saveCopyLine("Second.", experiment: "A", variant: "ai", brief: "b", at: EventFactory.at(1))
            #expect(try store.cachedCopyLine(experiment: "A", variant: "ai", brief: "b")
                    == CachedCopyLine(line: "Second.", createdAt: EventFactory.at(1)))
        }
    }

    /// Reads longer than one batch come in order and whole, from one snapshot; a reader that
    /// stops part way (its body throws) leaves the connection ready for the next read.
    @Test func readsOverSeveralBatchesAreWholeAndStopCleanly() async throws {
        try await withPostgresStore { store, _ in
            let users = 45_000
            let exposures = (0..<users).map {
                EventFactory.exposure("x", user: UserID(String(format: "u%06d", $0)), experiment: "A", variant: $0 % 2 == 0 ? "a" : "b", hours: 1)
            }
            for chunk in stride(from: 0, to: users, by: 15_000) {
                _ = try await store.append(Array(exposures[chunk..<min(chunk + 15_000, users)]))
            }
            var seen: [UserID] = []
            try store.forEachFact(experiment: "A") { seen.append($0.userID) }
            #expect(seen == exposures.map(\.userID), "every user once, in user order, across three batches")

            struct Stop: Error {}
            var read = 0
            #expect(throws: Stop.self) {
                try store.forEachFact(experiment: "A") { _ in
                    read += 1
                    if read == 25_000 { throw Stop() }
                }
            }
            var events = 0
            try store.forEachEvent { _ in events += 1 }
            #expect(events == users, "the next read on the pool runs normally")
            #expect(try store.facts(experiment: "A").count == users)
        }
    }
}
