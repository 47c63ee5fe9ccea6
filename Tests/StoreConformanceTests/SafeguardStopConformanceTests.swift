import Events
import ExperimentDefinitions
import Foundation
import Testing
import TestSupport

/// Safeguard stops on every store: written whole, once per arm in force, read back
/// exactly, reset with who and when, marked as notified.
@Suite struct SafeguardStopConformanceTests {
    static let figures = SafeguardFigures(controlUsers: 1200, controlCount: 240, armUsers: 1180, armCount: 354,
                                          difference: 0.1, interval: [0.031, 0.169], level: 0.0125, mixingVariance: 0.0004)

    static func stop(_ arm: String = "ai", at micros: Int64 = 1_796_083_200_123_456, id: String? = nil) -> SafeguardStop {
        SafeguardStop(id: id ?? UUID().uuidString.lowercased(), experiment: "chorus-trial-length", arm: arm, metric: "day0_cancel_rate",
                      action: .stopArm, stoppedAt: Timestamp(microseconds: micros), figures: figures)
    }

    @Test(arguments: storeFactories)
    func aStopIsWrittenOncePerArmAndReadBackWhole(_ factory: StoreFactory) async throws {
        try await factory.withStore { store in
            #expect(try store.safeguardStops(experiment: nil).isEmpty)
            let first = Self.stop(id: "stop-1")
            #expect(try store.recordSafeguardStop(first))
            // A second stop of the same arm while the first is in force is not written.
            #expect(try !store.recordSafeguardStop(Self.stop(at: 1_796_083_300_000_000, id: "stop-2")))
            #expect(try store.recordSafeguardStop(Self.stop("name", at: 1_796_083_300_000_000, id: "stop-3")))
            #expect(try store.safeguardStops(experiment: nil) == [first, Self.stop("name", at: 1_796_083_300_000_000, id: "stop-3")])
            #expect(try store.safeguardStops(experiment: "other").isEmpty)

            let resetAt = Timestamp(microseconds: 1_796_090_000_000_000)
            #expect(try store.resetSafeguardStops(experiment: "chorus-trial-length", arm: "ai", by: "ana@example.com", at: resetAt) == 1)
            #expect(try store.resetSafeguardStops(experiment: "chorus-trial-length", arm: "ai", by: "ana@example.com", at: resetAt) == 0)
            let lifted = try #require(try store.safeguardStops(experiment: "chorus-trial-length").first { $0.id == "stop-1" })
            #expect(lifted.resetAt == resetAt && lifted.resetBy == "ana@example.com" && !lifted.inForce)
            #expect(try store.safeguardStopsInForce().map(\.id) == ["stop-3"])
            // Once reset, the arm can be stopped again.
            #expect(try store.recordSafeguardStop(Self.stop(at: 1_796_100_000_000_000, id: "stop-4")))

            let notified = Timestamp(microseconds: 1_796_100_000_500_000)
            try store.markSafeguardStopNotified(id: "stop-4", at: notified)
            try store.markSafeguardStopNotified(id: "stop-4", at: notified.adding(hours: 1))   // the first mark stays
            #expect(try store.safeguardStops(experiment: nil).first { $0.id == "stop-4" }?.notifiedAt == notified)
            // A reset's notification has its own mark, only for a stop that was reset.
            try store.markSafeguardResetNotified(id: "stop-4", at: notified)   // stop-4 is in force: no mark
            #expect(try store.safeguardStops(experiment: nil).first { $0.id == "stop-4" }?.resetNotifiedAt == nil)
            #expect(lifted.resetNotifiedAt == nil)
            try store.markSafeguardResetNotified(id: "stop-1", at: notified)
            try store.markSafeguardResetNotified(id: "stop-1", at: notified.adding(hours: 1))   // the first mark stays
            #expect(try store.safeguardStops(experiment: nil).first { $0.id == "stop-1" }?.resetNotifiedAt == notified)
            #expect(try store.withSafeguardLease { 42 } == 42)
        }
    }

    /// Many writers racing to stop one arm: exactly one stop is written.
    @Test(arguments: storeFactories)
    func racingWritersWriteOneStop(_ factory: StoreFactory) async throws {
        try await factory.withStore { store in
            let written = try await withThrowingTaskGroup(of: Bool.self) { group in
                for n in 0..<8 { group.addTask { try store.recordSafeguardStop(Self.stop(at: 1_796_083_200_000_000 + Int64(n))) } }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(written == 1)
            #expect(try store.safeguardStopsInForce().count == 1)
        }
    }
}
