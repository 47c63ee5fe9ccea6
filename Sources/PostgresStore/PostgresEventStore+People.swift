import Events
import ExperimentDefinitions

extension PostgresEventStore {
    /// `PeopleDirectory.person(of:)`: the person's key from `people`, or the id itself.
    public func person(of userID: UserID) throws -> UserID {
        try readers.withConnection { c in
            let rows = try c.executePrepared("person_of", "SELECT person_id FROM people WHERE user_id = $1", [userID.text],
                                             context: "read person")
            return rows.count > 0 ? UserID(rows.text(0, 0)) : userID
        }
    }

    /// `PeopleDirectory.storePayments(since:until:)`.
    public func storePayments(since: Timestamp?, until: Timestamp) throws -> (payments: Int, unmatched: Int) {
        try readers.withConnection { c in
            let r = try c.execute(Self.storePaymentsSQL(since: since, until: until), context: "read store payments")
            return (Int(r.int64(0, 0)), Int(r.int64(0, 1)))
        }
    }

    /// The payments between `since` and `until`, read through the `events_store_payments` index.
    static func storePaymentsSQL(since: Timestamp?, until: Timestamp) -> String {
        """
        SELECT count(*), count(*) FILTER (WHERE e.user_id ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
            AND NOT EXISTS (SELECT 1 FROM people p WHERE p.user_id = e.user_id)
            AND NOT EXISTS (SELECT 1 FROM events x WHERE x.user_id = e.user_id AND x.type = \(EventType.exposure.rawValue)))
        FROM events e
        WHERE \(StorePaymentQuery.condition)
          AND e.ts >= \(since?.microseconds ?? 0) AND e.ts <= \(until.microseconds)
        """
    }

    /// `PeopleDirectory.identityConflicts()`.
    public func identityConflicts() throws -> Int {
        try readers.withConnection { c in
            Int(try c.execute("SELECT count(*) FROM identity_conflicts", context: "read identity conflicts").int64(0, 0))
        }
    }

    /// `PeopleDirectory.personsOfSeveralIds()`.
    public func personsOfSeveralIds() throws -> Set<UserID> {
        try readers.withConnection { c in
            let rows = try c.execute("SELECT DISTINCT person_id FROM people", context: "read persons of several ids")
            return Set((0..<rows.count).map { UserID(rows.text($0, 0)) })
        }
    }
}
