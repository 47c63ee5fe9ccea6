import Testing
import EventStore
import TestSupport

@Test func storesAndReadsBackOneExposure() async throws {
    try await withTemporaryStore { store, _ in
        let event = Event(id: "e1", type: .exposure, userID: "u1", timestamp: Timestamp(microseconds: 1_000_000),
                          experiment: "x", variant: "a")
        let result = try await store.append([event])
        #expect(result == AppendResult(stored: 1, duplicates: 0))
        #expect(try store.facts(experiment: "x").map(\.variant) == ["a"])
    }
}
