import Testing
import Events
@testable import SQLiteStore
import TestSupport

private typealias F = EventFactory

/// The writer skips recomputing facts for users it knows were never exposed; it must never skip
/// one who was, whoever stored the exposure and whenever.
@Suite struct ExposedUsersTests {
    @Test func theFilterNeverForgetsAndRarelyImagines() {
        var filter = ExposedUserFilter(capacity: 100_000)
        for n in 0..<100_000 { filter.insert("user-\(n)") }
        #expect((0..<100_000).allSatisfy { filter.mightContain("user-\($0)") })
        let wrong = (0..<100_000).filter { filter.mightContain("other-\($0)") }.count
        #expect(wrong < 3_000, "\(wrong) false positives in 100,000")
    }

    @Test func aLaterEventReachesTheFactsOfAUserExposedEarlier() async throws {
        try await withTemporaryStore { store, _ in
            _ = try await store.append([F.event("t0", .trialStarted, user: "stranger", hours: 1)])
            _ = try await store.append([F.exposure("x1", user: "u", experiment: "E", variant: "v", hours: 0)])
            _ = try await store.append([F.event("t1", .trialStarted, user: "u", hours: 1)])
            #expect(try store.facts(userID: "u").first?.trialStart == F.at(1))
            #expect(try store.facts(userID: "stranger").isEmpty)
        }
    }

    @Test func exposuresStoredBeforeARestartAreKnown() async throws {
        try await withTemporaryDirectory { dir in
            let path = dir.path("events.sqlite")
            do {
                let store = try SQLiteEventStore(path: path)
                _ = try await store.append([F.exposure("x1", user: "u", experiment: "E", variant: "v", hours: 0)])
                store.close()
            }
            let store = try SQLiteEventStore(path: path)
            defer { store.close() }
            _ = try await store.append([F.event("t1", .trialStarted, user: "u", hours: 1)])
            #expect(try store.facts(userID: "u").first?.trialStart == F.at(1))
        }
    }

    @Test func exposuresStoredThroughAnotherConnectionAreKnown() async throws {
        try await withTemporaryStore { store, dir in
            // The filter is built at this store's first commit...
            _ = try await store.append([F.event("s0", .trialStarted, user: "stranger", hours: 1)])
            // ...then another writer (another process's ingest, say) exposes users this store has not seen.
            let other = try SQLiteEventStore(path: dir.path("events.sqlite"))
            defer { other.close() }
            for n in 0..<3 {
                _ = try other.appendAndWait([F.exposure("o\(n)", user: "w\(n)", experiment: "E", variant: "v", hours: 0)])
                _ = try await store.append([F.event("t\(n)", .trialStarted, user: "w\(n)", hours: 1)])
                #expect(try store.facts(userID: "w\(n)").first?.trialStart == F.at(1), "user w\(n)")
            }
        }
    }
}
