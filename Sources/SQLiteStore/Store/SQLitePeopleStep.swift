import Events
import ExperimentDefinitions

/// The people step of a write transaction (docs/People.md): which ids belong to a person, the links the
/// transaction's `identified` events (and exposures carrying a store account id) make, and the
/// persons whose facts are recomputed from all of their ids' events before the commit.
///
/// Owned by `GroupCommitWriter` and used only on its queue, inside its open transaction; `begin`
/// starts each transaction's step.
final class SQLitePeopleStep {
    /// A person whose facts the step wrote: its key, the experiments it was exposed to, its ids.
    struct Refreshed {
        var person: UserID
        var experiments: [String]
        var members: [UserID]
    }

    private let connection: Connection
    /// Whether any id is linked yet: until then no user is looked up in `people`.
    private(set) var peopleExist = false
    /// Persons whose facts the open transaction must recompute from all their ids' events.
    private var personsToRefresh: Set<UserID> = []
    /// The positions (arrival order) of the `identified` events, and of the exposures carrying a
    /// `store_account_id`, that the open transaction stored.
    private var storedIdentifies: [Int] = []
    private var selectPerson, selectMembers, selectKnown, insertKnown, insertPerson, movePeople, deleteFacts, insertConflict,
                selectUserEvents, upsertFacts: Statement?

    /// Where the experiments of the facts the step writes are noted (their change counters move).
    private let changes: ExperimentChanges

    init(connection: Connection, changes: ExperimentChanges) {
        self.connection = connection
        self.changes = changes
    }

    /// Starts the step of a new transaction.
    func begin() throws {
        peopleExist = try connection.scalarInt("SELECT EXISTS (SELECT 1 FROM people)") == 1
        personsToRefresh = []
        storedIdentifies = []
    }

    /// The stored event at arrival position `index` names a second id (an identify, or an exposure's store account).
    func stored(identifying index: Int) { storedIdentifies.append(index) }

    /// `person`'s facts are recomputed in `apply`, once, from all of its ids' events.
    func refreshLater(_ person: UserID) { personsToRefresh.insert(person) }

    /// The person `user` belongs to when it is one of several ids (the person's own key included), else nil.
    func linkedPerson(of user: UserID) throws -> UserID? {
        let s = try connection.prepared(&selectPerson, "SELECT person_id FROM people WHERE user_id = ?1")
        defer { s.finish() }
        try s.bind(1, user)
        return try s.step() ? UserID(s.text(0)) : nil
    }

    /// Applies the transaction's stored `identified` events in arrival order (`IdentityRules`),
    /// then recomputes every person whose ids changed or got events, from all of its ids' events.
    /// In the same transaction as the events, so facts are exact at every commit. Returns the
    /// persons whose facts were written.
    func apply(_ events: [Event]) throws -> [Refreshed] {
        for i in storedIdentifies.sorted() {
            let e = events[i]
            if e.type == .exposure, let account = e.storeAccountID.map(UserID.init) {
                // The store account joins the exposed user's person (not an identify).
                guard account != e.userID, try linkedPerson(of: account) == nil else { continue }
                let person = try linkedPerson(of: e.userID) ?? e.userID
                if person != account { try link(account, into: person) }
                continue
            }
            guard let identity = e.identity else { continue }
            let userPerson = try linkedPerson(of: e.userID)
            let known = try connection.prepared(&selectKnown, "SELECT 1 FROM known_ids WHERE user_id = ?1")
            try known.bind(1, e.userID)
            let userIsKnown = try known.step()
            known.finish()
            let outcome = IdentityRules.decide(user: e.userID, identity: identity, personOfUser: userPerson ?? e.userID,
                                               personOfIdentity: try linkedPerson(of: identity) ?? identity,
                                               userIsKnown: userIsKnown, userIsLinked: userPerson.map { $0 != e.userID } ?? false)
            let markKnown = try connection.prepared(&insertKnown, "INSERT OR IGNORE INTO known_ids (user_id) VALUES (?1)")
            try markKnown.bind(1, identity)
            try markKnown.run()
            switch outcome {
            case .unchanged: break
            case .conflict:
                let c = try connection.prepared(&insertConflict, "INSERT OR IGNORE INTO identity_conflicts (user_id, event_id, identity) VALUES (?1, ?2, ?3)")
                try c.bind(1, e.userID)
                try c.bind(2, e.id)
                try c.bind(3, identity)
                try c.run()
            case .link(let anonymous, let person):
                try link(anonymous, into: person)
            }
        }
        guard !personsToRefresh.isEmpty else { return [] }
        var refreshed: [Refreshed] = []
        for person in personsToRefresh.sorted() {
            // A person listed before a link in this transaction may have been merged since.
            let key = try linkedPerson(of: person) ?? person
            if key != person && personsToRefresh.contains(key) { continue }
            if let done = try refreshPerson(key) { refreshed.append(done) }
        }
        personsToRefresh = []
        return refreshed
    }

    /// Joins `id`'s person (it and the ids it holds) into `person`; `id`'s facts become the person's.
    private func link(_ id: UserID, into person: UserID) throws {
        let move = try connection.prepared(&movePeople, "UPDATE people SET person_id = ?2 WHERE person_id = ?1")
        try move.bind(1, id)
        try move.bind(2, person)
        try move.run()
        for (member, key) in [(id, person), (person, person)] {
            let add = try connection.prepared(&insertPerson, "INSERT OR IGNORE INTO people (user_id, person_id) VALUES (?1, ?2)")
            try add.bind(1, member)
            try add.bind(2, key)
            try add.run()
        }
        // Facts are keyed (experiment, user_id): the id's rows are found through the experiments its
        // person's ids were exposed to (a scan of `facts` per link would be quadratic in a load).
        let drop = try connection.prepared(&deleteFacts, """
            DELETE FROM facts WHERE user_id = ?1 AND experiment IN (
                SELECT experiment FROM events WHERE user_id = ?1 AND type = \(EventType.exposure.rawValue)
                UNION SELECT e.experiment FROM people p JOIN events e ON e.user_id = p.user_id
                WHERE p.person_id = ?2 AND e.type = \(EventType.exposure.rawValue))
            """)
        try drop.bind(1, id)
        try drop.bind(2, person)
        try drop.run()
        personsToRefresh.remove(id)
        personsToRefresh.insert(person)
        peopleExist = true
    }

    /// Recomputes `person`'s facts from the events of all its ids; nil when it has none.
    private func refreshPerson(_ person: UserID) throws -> Refreshed? {
        let list = try connection.prepared(&selectMembers, "SELECT user_id FROM people WHERE person_id = ?1 ORDER BY user_id")
        try list.bind(1, person)
        var members: [UserID] = []
        while try list.step() { members.append(UserID(list.text(0))) }
        list.finish()
        if members.isEmpty { members = [person] }
        let select = try connection.prepared(&selectUserEvents, FactsRefresh.selectEventsSQL)
        var sources: [(id: UserID, events: [FactsBuilder.Source])] = []
        for id in members {
            try select.reset()
            sources.append((id, try FactsRefresh.storedSources(userID: id, select: select)))
        }
        let facts = FactsBuilder.facts(person: person, members: sources)
        try FactsRefresh.write(facts, upsert: try connection.prepared(&upsertFacts, FactsRefresh.upsertSQL), changes: changes)
        return facts.isEmpty ? nil : Refreshed(person: person, experiments: facts.map(\.experiment), members: members)
    }
}
