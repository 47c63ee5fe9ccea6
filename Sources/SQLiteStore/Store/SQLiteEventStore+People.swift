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

    /// `PeopleDirectory.identityConflicts()`.
    public func identityConflicts() throws -> Int {
        try readers.read { c in Int(try c.scalarInt("SELECT count(*) FROM identity_conflicts") ?? 0) }
    }
}
