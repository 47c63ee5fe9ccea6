import Events

/// The reference as a report reads it: facts computed in memory, and none of what a store keeps
/// beside them (no safeguard stops, allocation periods, people or recorded end of observation), so
/// a report of it is the report of the facts alone.
extension ReferenceFacts: ReportSource {
    func safeguardStops(experiment: String?) throws -> [SafeguardStop] { [] }
    func allocationPeriods(experiment: String?) throws -> [AllocationPeriod] { [] }
    func person(of userID: UserID) throws -> UserID { userID }
    func identityConflicts() throws -> Int { 0 }
    func personsOfSeveralIds() throws -> Set<UserID> { [] }
    func storePayments(since: Timestamp?, until: Timestamp) throws -> (payments: Int, unmatched: Int) { (0, 0) }
    func observedUntil() throws -> Timestamp? { nil }
    func eventCount(from time: Timestamp) throws -> Int { 0 }
}
