import Events
import ExperimentDefinitions

/// People (docs/People.md) inside one write transaction, after its users and their persons are locked:
/// the `people` rows of every person the transaction's ids belong to, the transaction's stored
/// `identified` events applied to them in arrival order (`IdentityRules`, through an
/// `IdentityGraph` seeded with those rows), the changes written, and the persons' facts
/// recomputed from all their ids' events.
struct PeopleStep {
    /// The rows read, then changed by the identifies.
    var graph: IdentityGraph
    private let before: [UserID: UserID]
    /// Anonymous ids merged into a person here: their own facts rows go.
    private(set) var absorbed: Set<UserID> = []
    private(set) var linkedPersons: Set<UserID> = []
    private var conflicts: [(user: UserID, event: EventID, identity: UserID)] = []
    private var newlyKnown: Set<UserID> = []

    /// Every person key among the rows read.
    var persons: Set<UserID> { Set(graph.personOf.values) }

    /// Reads the rows of the persons of `ids` and the known ids among them and the identities, then
    /// applies, in arrival order, `identifies` that this transaction stored (a repeat of a stored one
    /// changes nothing) and the store accounts of the exposures among them.
    init(ids: Set<UserID>, identifies: [Event], on c: Connection) throws {
        let list = arrayLiteral(ids.sorted().lazy.map(\.text))
        let rows = try c.executePrepared("people_of", """
            SELECT user_id, person_id FROM people WHERE person_id IN (SELECT person_id FROM people WHERE user_id = ANY($1::text[]))
            """, [list], context: "append events (read people)")
        var personOf: [UserID: UserID] = [:]
        for row in 0..<rows.count { personOf[UserID(rows.text(row, 0))] = UserID(rows.text(row, 1)) }
        before = personOf
        guard !identifies.isEmpty else {
            graph = IdentityGraph(personOf: personOf, known: [])
            return
        }
        let identifyUsers = arrayLiteral(Set(identifies.lazy.filter { $0.type == .identified }.map(\.userID)).sorted().lazy.map(\.text))
        let knownRows = try c.executePrepared("known_of", "SELECT user_id FROM known_ids WHERE user_id = ANY($1::text[])",
                                              [identifyUsers], context: "append events (read known ids)")
        var known: Set<UserID> = []
        for row in 0..<knownRows.count { known.insert(UserID(knownRows.text(row, 0))) }
        // Which of the identifies this transaction stored (not repeats of stored ones).
        let fresh = try c.executePrepared("identifies_stored", """
            SELECT user_id, event_id FROM events
            WHERE user_id = ANY($1::text[]) AND type = \(EventType.identified.rawValue) AND xmin = pg_current_xact_id()::xid
            """, [identifyUsers], context: "append events (read identifies)")
        var stored: Set<InsertOrder.Key> = []
        for row in 0..<fresh.count { stored.insert(InsertOrder.Key(user: UserID(fresh.text(row, 0)), event: EventID(fresh.text(row, 1)))) }
        graph = IdentityGraph(personOf: personOf, known: known)
        for e in identifies {
            if e.type == .exposure {
                // An exposure's store account joins the user's person (a repeat finds it joined).
                if let person = graph.linkStoreAccount(of: e), let account = e.storeAccountID.map(UserID.init) {
                    absorbed.insert(account)
                    linkedPersons.insert(person)
                }
                continue
            }
            guard stored.contains(InsertOrder.Key(user: e.userID, event: e.id)), let identity = e.identity else { continue }
            if !graph.known.contains(identity) { newlyKnown.insert(identity) }
            switch graph.apply(e) {
            case .unchanged: break
            case .conflict: conflicts.append((e.userID, e.id, identity))
            case .link(let anonymous, let person):
                absorbed.insert(anonymous)
                linkedPersons.insert(person)
            }
        }
    }

    /// Writes the changed `people` rows, the newly known ids and the conflicts.
    func apply(on c: Connection) throws {
        var rows = CopyBuffer()
        for (id, person) in graph.personOf.sorted(by: { $0.key < $1.key }) where before[id] != person {
            rows.add(id); rows.add(person); rows.endRow()
        }
        if !rows.isEmpty {
            try c.copyIn("COPY abctl_people_staging (user_id, person_id) FROM STDIN", data: rows.bytes, context: "append events (write people)")
            try c.executePrepared("upsert_people", """
                INSERT INTO people (user_id, person_id) SELECT user_id, person_id FROM abctl_people_staging ORDER BY user_id
                ON CONFLICT (user_id) DO UPDATE SET person_id = EXCLUDED.person_id
                """, [], context: "append events (write people)")
        }
        if !newlyKnown.isEmpty {
            try c.executePrepared("insert_known", """
                INSERT INTO known_ids (user_id) SELECT unnest($1::text[]) ORDER BY 1 ON CONFLICT DO NOTHING
                """, [arrayLiteral(newlyKnown.sorted().lazy.map(\.text))], context: "append events (write known ids)")
        }
        for conflict in conflicts {
            try c.executePrepared("insert_conflict", """
                INSERT INTO identity_conflicts (user_id, event_id, identity) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING
                """, [conflict.user.text, conflict.event.text, conflict.identity.text], context: "append events (write conflicts)")
        }
    }

    /// The persons to recompute: those that gained ids here, and those of `users` (ids of the
    /// transaction that belong to a person of several ids).
    func touchedPersons(users: Set<UserID>) -> Set<UserID> {
        linkedPersons.union(users.lazy.map { graph.person(of: $0) })
    }

    /// Recomputes `persons`' facts from the events of all their ids (this transaction's included).
    func refreshPersons(_ persons: Set<UserID>, into facts: inout CopyBuffer, on c: Connection) throws {
        guard !persons.isEmpty else { return }
        let rows = try c.executePrepared("person_events", """
            SELECT p.person_id, e.user_id, \(EventColumns.names(FactsBuilder.Source.columns, qualifier: "e."))
            FROM people p JOIN events e ON e.user_id = p.user_id WHERE p.person_id = ANY($1::text[])
            """, [arrayLiteral(persons.sorted().lazy.map(\.text))], context: "append events (read persons' events)")
        var members: [UserID: [UserID: [FactsBuilder.Source]]] = [:]
        for (row, source) in rows.factsSources().enumerated() {
            members[UserID(rows.text(row, 0)), default: [:]][UserID(rows.text(row, 1)), default: []].append(source)
        }
        for person in persons.sorted() {
            let ids = (members[person] ?? [:]).sorted { $0.key < $1.key }.map { (id: $0.key, events: $0.value) }
            for f in FactsBuilder.facts(person: person, members: ids) { facts.add(f) }
        }
    }

    /// Deletes the facts rows of the ids merged into a person here.
    func dropAbsorbedFacts(on c: Connection) throws {
        guard !absorbed.isEmpty else { return }
        try c.executePrepared("drop_absorbed_facts", "DELETE FROM facts WHERE user_id = ANY($1::text[])",
                              [arrayLiteral(absorbed.sorted().lazy.map(\.text))], context: "append events (merge facts)")
    }
}
