import Events
import ExperimentDefinitions

extension SQLiteEventStore {
    /// `PeopleDirectory.person(of:)`: the person's key from `people`, or the id itself.
    public func person(of userID: UserID) throws -> UserID {
        try readers.read { c in
            let s = try c.cached("SELECT person_id FROM people WHERE user_id = ?1")
            defer { s.finish() }
            try s.bind(1, userID)
            return try s.step() ? UserID(s.text(0)) : userID
        }
    }

    /// `PeopleDirectory.storePayments(since:until:)`.
    public func storePayments(since: Timestamp?, until: Timestamp) throws -> (payments: Int, unmatched: Int) {
        try readers.read { c in
            let s = try c.cached(Self.storePaymentsSQL)
            defer { s.finish() }
            try s.bind(1, since?.microseconds ?? Int64.min)
            try s.bind(2, until.microseconds)
            guard try s.step() else { return (0, 0) }
            return (Int(s.int64(0)), Int(s.int64(1)))
        }
    }

    /// The payments between ?1 and ?2, read through the `events_store_payments` index.
    static let storePaymentsSQL = """
        SELECT count(*), coalesce(sum(length(e.user_id) = 36
            AND e.user_id GLOB '[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-*-*-*'
            AND NOT EXISTS (SELECT 1 FROM people p WHERE p.user_id = e.user_id)
            AND NOT EXISTS (SELECT 1 FROM events x WHERE x.user_id = e.user_id AND x.type = \(EventType.exposure.rawValue))), 0)
        FROM events e
        WHERE \(StorePaymentQuery.condition) AND e.ts >= ?1 AND e.ts <= ?2
        """

    /// `PeopleDirectory.identityConflicts()`.
    public func identityConflicts() throws -> Int {
        try readers.read { c in Int(try c.scalarInt("SELECT count(*) FROM identity_conflicts") ?? 0) }
    }

    /// `PeopleDirectory.personsOfSeveralIds()`.
    public func personsOfSeveralIds() throws -> Set<UserID> {
        try readers.read { c in
            let s = try c.cached("SELECT DISTINCT person_id FROM people")
            defer { s.finish() }
            var persons = Set<UserID>()
            while try s.step() { persons.insert(UserID(s.text(0))) }
            return persons
        }
    }
}
