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

    /// `PeopleDirectory.identityConflicts()`.
    public func identityConflicts() throws -> Int {
        try readers.withConnection { c in
            Int(try c.execute("SELECT count(*) FROM identity_conflicts", context: "read identity conflicts").int64(0, 0))
        }
    }
}
