import Events
import Foundation

/// Facts in memory as a `ReportSource`: records the parts of the rows each read asked for and gives
/// rows with the other parts empty, as a store leaves them unread.
final class CountingSource: ReportSource, @unchecked Sendable {
    private let rows: [UserFacts]
    private let observed: Timestamp?
    /// Gives whole rows whatever was asked (a store that reads nothing less).
    private let wholeRows: Bool
    private let lock = NSLock()
    private var asked: [FactFields] = []
    private var reads = 0

    init(rows: [UserFacts], observedUntil: Timestamp? = nil, wholeRows: Bool = false) {
        self.rows = rows
        observed = observedUntil
        self.wholeRows = wholeRows
    }

    /// The `fields` of each facts read, in order.
    var fieldsAsked: [FactFields] { lock.withLock { asked } }
    /// How many times the end of observation was read.
    var observedReads: Int { lock.withLock { reads } }

    func forEachFact(experiment: String, since: Timestamp?, until: Timestamp?, _ body: (UserFacts) throws -> Void) throws {
        try forEachFact(experiment: experiment, since: since, until: until, fields: .all, body)
    }

    func forEachFact(experiment: String, since: Timestamp?, until: Timestamp?, fields: FactFields,
                     _ body: (UserFacts) throws -> Void) throws {
        lock.withLock { asked.append(fields) }
        for var f in rows where f.experiment == experiment && f.firstExposure >= (since ?? Timestamp(microseconds: .min))
            && f.firstExposure < (until ?? Timestamp(microseconds: .max)) {
            if !wholeRows && !fields.contains(.attributes) { (f.attributes, f.placement) = (.empty, nil) }
            if !wholeRows && !fields.contains(.revenueEntries) { f.revenueEntries = [] }
            try body(f)
        }
    }

    func netRevenue(experiment: String, asOf: Timestamp, since: Timestamp?, until: Timestamp?) throws -> [UserID: Double] { [:] }
    func experiments() throws -> [ExperimentSummary] { [] }
    func safeguardStops(experiment: String?) throws -> [SafeguardStop] { [] }
    func allocationPeriods(experiment: String?) throws -> [AllocationPeriod] { [] }
    func person(of userID: UserID) throws -> UserID { userID }
    func identityConflicts() throws -> Int { 0 }
    func personsOfSeveralIds() throws -> Set<UserID> { [] }
    func storePayments(since: Timestamp?, until: Timestamp) throws -> (payments: Int, unmatched: Int) { (0, 0) }
    func observedUntil() throws -> Timestamp? {
        lock.withLock { reads += 1 }
        return observed
    }
    /// Each row's first exposure stands for an event at or after `time`.
    func eventCount(from time: Timestamp) throws -> Int {
        rows.filter { $0.firstExposure.microseconds >= time.microseconds }.count
    }
}
