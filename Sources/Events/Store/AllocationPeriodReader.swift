/// A bandit's allocation periods as a store recorded them, read (`AllocationPeriodStore` writes
/// them): what a report and every node's snapshot read.
public protocol AllocationPeriodReader: Sendable {
    /// Every period of `experiment` (of every experiment when nil), by experiment then index.
    func allocationPeriods(experiment: String?) throws -> [AllocationPeriod]
}
