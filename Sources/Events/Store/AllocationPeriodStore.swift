/// Where a bandit's allocation periods live (docs/Bandits.md): each written once, by whichever node
/// holds the lease at the boundary (the safeguard lease: `SafeguardStopStore.withSafeguardLease`),
/// and read by every node at least every 10 s.
public protocol AllocationPeriodStore: AllocationPeriodReader {
    /// Writes `period` unless (experiment, index) is already recorded: true when it was written.
    /// A crash leaves it whole or absent; two writers racing write one.
    func recordAllocationPeriod(_ period: AllocationPeriod) throws -> Bool
}
