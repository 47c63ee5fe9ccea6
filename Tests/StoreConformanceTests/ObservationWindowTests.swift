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
}
