import Events
import ExperimentDefinitions
import Foundation
import Testing
import TestSupport

/// A bandit's allocation periods on every store: written whole, once per (experiment, period)
/// whoever races to write it, read back exactly by another node.
@Suite struct AllocationPeriodConformanceTests {
    static func period(_ index: Int, experiment: String = "bandit", weights: [Double] = [0.5, 0.3, 0.2], computed: Int64 = 0) -> AllocationPeriod {
        let keys = ["control", "b", "c"]
        return AllocationPeriod(experiment: experiment, index: index, from: Timestamp(microseconds: 1_796_083_200_000_000 + Int64(index) * 86_400_000_000),
                                weights: Array(zip(keys, weights)).map { (variant: $0.0, weight: $0.1) },
                                basis: keys.enumerated().map { (variant: $0.element, users: 200 + $0.offset, rewards: 31 + $0.offset) },
                                rule: index == 0 ? "first" : "learned", computedAt: Timestamp(microseconds: 1_796_083_200_500_000 + computed))
    }

    @Test(arguments: storeFactories)
    func aPeriodIsWrittenOnceAndReadBackWhole(_ factory: StoreFactory) async throws {
        try await factory.withTwoStores { a, b in
            #expect(try a.allocationPeriods(experiment: nil).isEmpty)
            #expect(try a.recordAllocationPeriod(Self.period(0, weights: [1 / 3, 1 / 3, 1 / 3])))
            #expect(try a.recordAllocationPeriod(Self.period(1, weights: [0.123456789012345, 0.6, 0.276543210987655])))
            // The same period again, with other weights, from the other node: the first stays.
            #expect(try !b.recordAllocationPeriod(Self.period(1, weights: [0.9, 0.05, 0.05], computed: 7)))
            #expect(try a.recordAllocationPeriod(Self.period(0, experiment: "other")))
            let read = try b.allocationPeriods(experiment: "bandit")
            #expect(read == [Self.period(0, weights: [1 / 3, 1 / 3, 1 / 3]), Self.period(1, weights: [0.123456789012345, 0.6, 0.276543210987655])])
            #expect(read.last?.basis.map(\.users) == [200, 201, 202])
            #expect(try b.allocationPeriods(experiment: nil).count == 3)
            #expect(try b.allocationPeriods(experiment: "none").isEmpty)
        }
    }

    /// Many writers racing to record one period: exactly one record is written.
    @Test(arguments: storeFactories)
    func racingWritersWriteOnePeriod(_ factory: StoreFactory) async throws {
        try await factory.withTwoStores { a, b in
            let written = try await withThrowingTaskGroup(of: Bool.self) { group in
                for n in 0..<8 {
                    let store = n % 2 == 0 ? a : b
                    group.addTask { try store.recordAllocationPeriod(Self.period(3, weights: [0.2, 0.4, 0.4], computed: Int64(n))) }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(written == 1)
            #expect(try a.allocationPeriods(experiment: "bandit").count == 1)
        }
    }
}
