import Events
import ExperimentDefinitions

/// Recomputes, inside a migration's transaction, the facts rows a migration left short: with
/// `FactsBuilder`, as a write does, for the users (or the persons they belong to) whose rows can
/// change. Runs on the migrating connection, which no writer has prepared.
enum FactsMigration {
    /// The rows of users with an `uncancelled` or an `expired` event: only those can hold an undone
    /// cancel or an end after the first expiry.
    static func refreshSubscriptionLives(_ c: Connection) throws {
        let types = [EventType.uncancelled, .expired].map { String($0.rawValue) }.joined(separator: ",")
        let rows = try c.execute("SELECT DISTINCT user_id FROM events WHERE type IN (\(types))", context: "migrate (facts to refresh)")
        var users: Set<UserID> = []
        for row in 0..<rows.count { users.insert(UserID(rows.text(row, 0))) }
        guard !users.isEmpty else { return }
        let people = try PeopleStep(ids: users, identifies: [], on: c)
        let linked = users.filter { people.graph.personOf[$0] != nil }
        var facts = CopyBuffer()
        try EventWriteTransaction.refreshFacts(exposed: [], others: users.subtracting(linked), batchEvents: [:], into: &facts, on: c)
        try people.refreshPersons(people.touchedPersons(users: linked), into: &facts, on: c)
        guard !facts.isEmpty else { return }
        try c.execute("CREATE TEMPORARY TABLE abctl_facts_staging (LIKE facts) ON COMMIT DROP", context: "migrate (refresh facts)")
        try c.copyIn(EventWriteTransaction.copyFacts, data: facts.bytes, context: "migrate (refresh facts)")
        try c.execute(EventWriteTransaction.upsertFacts, context: "migrate (refresh facts)")
    }
}
