import ExperimentDefinitions

/// One person, many ids (docs/People.md): what one `identified` event does. Both stores apply it
/// to their tables, in the order the events were stored, and `IdentityGraph` applies it in memory
/// (the conformance tests' reference), so the rule is written once.
///
/// - An id that has been an `identity` is known; two known ids never merge.
/// - An anonymous id links to one known id, its first; a later `identified` of it to another is a
///   conflict: stored, counted, and changes nothing.
/// - A person's key is its known id (or an anonymous id while it has none).
public enum IdentityRules {
    public enum Outcome: Equatable, Sendable {
        /// Already one person, or an id identified as itself.
        case unchanged
        /// The anonymous id `anonymous` (a person of its own until now, with whatever store
        /// accounts it holds) joins `person`.
        case link(anonymous: UserID, into: UserID)
        /// The user was known, or linked already to another person.
        case conflict
    }

    /// The outcome of `identified(user, identity)` given the state before it: each id's person
    /// (the id itself when it has no link), whether `user` is known, and whether `user` is linked
    /// into a person other than itself.
    public static func decide(user: UserID, identity: UserID, personOfUser: UserID, personOfIdentity: UserID,
                              userIsKnown: Bool, userIsLinked: Bool) -> Outcome {
        if user == identity || personOfUser == personOfIdentity { return .unchanged }
        if userIsKnown || userIsLinked { return .conflict }
        return .link(anonymous: user, into: personOfIdentity)
    }
}

/// Who is who, in memory: `IdentityRules` applied to `identified` events in the order given.
/// The stores keep the same in their tables; tests and the simulation use this one.
public struct IdentityGraph: Sendable {
    /// Every id of a person with more than one id (the key itself included) to the person's key.
    public private(set) var personOf: [UserID: UserID] = [:]
    public private(set) var known: Set<UserID> = []
    /// The (user, event) keys of the conflicting identifies.
    public private(set) var conflicts: [(user: UserID, event: EventID)] = []
    /// `personOf` inverted: each person's ids (the key included), so a link moves a person's ids
    /// without a pass over every id (a bulk load with many log-ins made that quadratic).
    private var members: [UserID: Set<UserID>] = [:]

    public init() {}

    /// A graph holding part of a store's state: the `people` rows and known ids a transaction read.
    public init(personOf: [UserID: UserID], known: Set<UserID>) {
        self.personOf = personOf
        self.known = known
        for (id, person) in personOf { members[person, default: []].insert(id) }
    }

    public func person(of id: UserID) -> UserID { personOf[id] ?? id }

    /// Applies one stored (first-copy) `identified` event.
    @discardableResult
    public mutating func apply(_ event: Event) -> IdentityRules.Outcome {
        guard event.type == .identified, let identity = event.identity else { return .unchanged }
        let user = event.userID
        let outcome = IdentityRules.decide(user: user, identity: identity, personOfUser: person(of: user),
                                           personOfIdentity: person(of: identity), userIsKnown: known.contains(user),
                                           userIsLinked: person(of: user) != user)
        known.insert(identity)
        switch outcome {
        case .unchanged: break
        case .conflict: conflicts.append((user, event.id))
        case .link(let anonymous, let into):
            link(anonymous, into: into)
        }
        return outcome
    }

    /// An exposure's `store_account_id` joins the store account to the exposed user's person
    /// (docs/People.md, "Store accounts"): not an identify, so no id becomes known and the user
    /// keeps its own link. An account already in a person stays there. Returns the person it
    /// joined, or nil.
    @discardableResult
    public mutating func linkStoreAccount(of exposure: Event) -> UserID? {
        guard exposure.type == .exposure, let account = exposure.storeAccountID.map(UserID.init),
              account != exposure.userID, personOf[account] == nil else { return nil }
        let person = person(of: exposure.userID)
        guard person != account else { return nil }
        link(account, into: person)
        return person
    }

    /// Applies what a stored event says about people: an identify, or an exposure's store account.
    public mutating func record(_ event: Event) {
        if event.type == .identified { apply(event) } else if event.type == .exposure { linkStoreAccount(of: event) }
    }

    /// Joins `id`'s person (with its store accounts) into `person`.
    public mutating func link(_ id: UserID, into person: UserID) {
        // The ids whose person is `id` move with it; `id` and `person` leave the persons they were in.
        var moving = members.removeValue(forKey: id) ?? []
        for m in [id, person] { if let p = personOf[m], p != id { members[p]?.remove(m) } }
        moving.insert(id)
        moving.insert(person)
        for member in moving { personOf[member] = person }
        members[person, default: []].formUnion(moving)
    }
}
