import Events

/// The simulated bandits keep no people and record no end of observation: a report reads their
/// facts, stops and periods.
extension MemoryBanditStore: ReportSource {
    func person(of userID: UserID) throws -> UserID { userID }
    func identityConflicts() throws -> Int { 0 }
    func personsOfSeveralIds() throws -> Set<UserID> { [] }
    func storePayments(since: Timestamp?, until: Timestamp) throws -> (payments: Int, unmatched: Int) { (0, 0) }
    func observedUntil() throws -> Timestamp? { nil }
    func eventCount(from time: Timestamp) throws -> Int { 0 }
}
