import Events
import Foundation
import Testing
import TestSupport

/// Where simulated data ends: nothing until recorded, then the moment recorded last, on every store.
@Suite struct ObservationWindowTests {
    @Test(arguments: storeFactories)
    func theLastRecordedMomentIsKept(_ factory: StoreFactory) async throws {
        try await factory.withStore { store in
            #expect(try store.observedUntil() == nil)
            let first = Timestamp(microseconds: 1_765_000_000_123_456), second = Timestamp(microseconds: 1_766_000_000_000_001)
            try store.recordObservedUntil(first)
            #expect(try store.observedUntil() == first)
            try store.recordObservedUntil(second)
            #expect(try store.observedUntil() == second)
        }
    }

    /// The record holds only while the store is the simulation's: events already stored again (a
    /// rerun) keep it; any new event (real ones ingested later) clears it, so reports read as of now.
    @Test(arguments: storeFactories)
    func aNewEventClearsTheRecordedEnd(_ factory: StoreFactory) async throws {
        try await factory.withStore { store in
            let simulated = EventFactory.exposure("x1", user: "sim-1", experiment: "A", variant: "control", hours: 1)
            _ = try store.appendAndWait([simulated])
            let end = EventFactory.at(240)
            try store.recordObservedUntil(end)
            #expect(try store.appendAndWait([simulated]) == AppendResult(stored: 0, duplicates: 1))
            #expect(try store.observedUntil() == end, "a batch of events already stored keeps the end")
            _ = try store.appendAndWait([EventFactory.event("t1", .trialStarted, user: "real-1", hours: 300)])
            #expect(try store.observedUntil() == nil, "a new event clears it")
        }
    }
}
