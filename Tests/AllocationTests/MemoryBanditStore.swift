import Events
import ExperimentDefinitions
import Foundation
import TestSupport

/// Facts, periods and stops in memory, for running many simulated bandits quickly; the
/// conformance suite checks the real stores keep periods the same way.
final class MemoryBanditStore: FactsReader, AllocationPeriodStore, SafeguardStopStore, @unchecked Sendable {
    private let lock = NSLock()
    /// In first-exposure order.
    private(set) var rows: [UserFacts] = []
    private var periods: [AllocationPeriod] = []
    private var stops: [SafeguardStop] = []
    private let scales = MemorySafeguardScales()

    func append(_ f: UserFacts) { lock.withLock { rows.append(f) } }

    func forEachFact(experiment: String, since: Timestamp?, until: Timestamp?, _ body: (UserFacts) throws -> Void) throws {
        for f in lock.withLock({ rows }) {
            if let until, f.firstExposure >= until { break }
            if let since, f.firstExposure < since { continue }
            if f.experiment == experiment { try body(f) }
        }
    }

    func netRevenue(experiment: String, asOf: Timestamp, since: Timestamp?, until: Timestamp?) throws -> [UserID: Double] { [:] }
    func experiments() throws -> [ExperimentSummary] { [] }

    func allocationPeriods(experiment: String?) throws -> [AllocationPeriod] {
        lock.withLock { periods.filter { experiment == nil || $0.experiment == experiment }.sorted { ($0.experiment, $0.index) < ($1.experiment, $1.index) } }
    }

    func recordAllocationPeriod(_ period: AllocationPeriod) throws -> Bool {
        lock.withLock {
            if periods.contains(where: { $0.experiment == period.experiment && $0.index == period.index }) { return false }
            periods.append(period)
            return true
        }
    }

    func safeguardStops(experiment: String?) throws -> [SafeguardStop] { lock.withLock { stops.filter { experiment == nil || $0.experiment == experiment } } }
    func recordSafeguardStop(_ stop: SafeguardStop) throws -> Bool { lock.withLock { stops.append(stop) }; return true }
    func resetSafeguardStops(experiment: String, arm: String, by who: String, at time: Timestamp) throws -> Int { 0 }
    func markSafeguardStopNotified(id: String, at time: Timestamp) throws {}
    func markSafeguardResetNotified(id: String, at time: Timestamp) throws {}
    func withSafeguardLease<T>(_ body: () throws -> T) throws -> T? { try body() }
    func fixSafeguardScale(_ scale: SafeguardScale) throws -> SafeguardScale { try scales.fixSafeguardScale(scale) }
}
