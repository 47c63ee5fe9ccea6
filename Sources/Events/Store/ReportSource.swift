/// Everything a report reads from a store, by type: the facts, the safeguard stops, a bandit's
/// allocation periods, the people figures and where the data ends. Both stores are one (through
/// `EventStore`); a test double implements these reads and nothing else.
///
/// Reporting reads these inputs once per report (`ReportInputs.read`), the as-of moment among them.
public protocol ReportSource: FactsReader, SafeguardStopReader, AllocationPeriodReader, PeopleDirectory, ObservationWindowReader {}
