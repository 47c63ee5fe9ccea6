import Assignment
import Events
import ExperimentDefinitions
import Foundation
import Testing
import TestSupport

/// One person, many ids (docs/People.md), on every store: facts per (experiment, person) equal
/// `FactsBuilder` over all of the person's ids' events, with the links `IdentityGraph` makes of
/// the `identified` events in the order they were stored; the sticky record is the person's;
/// conflicts are counted; two writers (two nodes) give one person whatever the order.
@Suite struct PeopleConformanceTests {
    typealias F = EventFactory

    /// What a store must give: the first copy of each key, identifies applied in arrival order.
    struct Reference {
        var graph = IdentityGraph()
        var byPerson: [UserID: [UserID: [Event]]] = [:]

        init(_ arrivals: [Event]) {
            struct Key: Hashable { var user: UserID, event: EventID }
            var seen: Set<Key> = []
            var firsts: [Event] = []
            for e in arrivals where seen.insert(Key(user: e.userID, event: e.id)).inserted {
                firsts.append(e)
                graph.record(e)
            }
            for e in firsts { byPerson[graph.person(of: e.userID), default: [:]][e.userID, default: []].append(e) }
        }

        func facts(experiment: String, asOf: Timestamp? = nil) -> [UserFacts] {
            byPerson.flatMap { person, ids in
                FactsBuilder.facts(person: person, members: ids.sorted { $0.key < $1.key }.map { id, events in
                    (id, events.filter { asOf == nil || $0.timestamp <= asOf! }.map(FactsBuilder.Source.init))
                })
            }.filter { $0.experiment == experiment }.sorted { $0.userID < $1.userID }
        }

        var conflicts: Int { graph.conflicts.count }
    }

    /// Random events with identifies: most users log in as one of fewer accounts (several devices
    /// per account), some a second time as another account (a conflict), some accounts identify
    /// as other accounts (known ids never merge), and accounts get events of their own.
    static func events(users: Int, seed: UInt64) -> [Event] {
        var rng = SeededGenerator(seed: seed)
        var events = RandomEvents.make(users: users, seed: seed)
        let accounts = max(1, users / 3)
        func account() -> UserID { "acct-\(Int.random(in: 0..<accounts, using: &rng))" }
        func at() -> Timestamp { RandomEvents.origin.adding(hours: Double(Int.random(in: 0...(24 * 40), using: &rng))) }
        for u in 0..<users where Int.random(in: 0..<10, using: &rng) < 6 {
            let first = account()
            events.append(Event(id: "identify:\(first)", type: .identified, userID: "user-\(u)", timestamp: at(), identity: first))
            if Int.random(in: 0..<10, using: &rng) == 0 {
                let second = account()
                events.append(Event(id: "identify:\(second)", type: .identified, userID: "user-\(u)", timestamp: at(), identity: second))
            }
        }
        // Store accounts: an exposure carrying one, a payment under it before or after.
        for u in 0..<users where Int.random(in: 0..<10, using: &rng) < 2 {
            let token: UserID = "tok-\(u)"
            events.append(Event(id: "sx", type: .exposure, userID: "user-\(u)", timestamp: at(), experiment: "beta", variant: "name",
                                storeAccountID: token.text))
            events.append(Event(id: "sp", type: .purchased, userID: token, timestamp: at(), revenue: 4.99))
        }
        for a in 0..<accounts {
            let user: UserID = "acct-\(a)"
            for n in 0..<Int.random(in: 0...3, using: &rng) {
                let type = [EventType.purchased, .converted, .trialStarted, .cancelled, .renewed].randomElement(using: &rng)!
                // Paid through a store, so merged persons' facts must carry proceeds and the plan too.
                events.append(Event(id: "a\(n)", type: type, userID: user, timestamp: at(), revenue: type.carriesRevenue ? 9.99 : nil,
                                    productID: type.carriesRevenue ? "monthly" : nil, store: type.carriesRevenue ? .appStore : nil,
                                    proceeds: type.carriesRevenue ? 8.49 : nil))
            }
            if Int.random(in: 0..<8, using: &rng) == 0 {
                events.append(Event(id: "x\(a)", type: .exposure, userID: user, timestamp: at(), experiment: "alpha", variant: "ai"))
            }
            if Int.random(in: 0..<10, using: &rng) == 0 {
                let other = account()
                events.append(Event(id: "identify:\(other)", type: .identified, userID: user, timestamp: at(), identity: other))
            }
        }
        return events
    }

    /// Shuffled, in random chunks with some sent twice: the arrival order is the order of first copies.
    @Test(arguments: storeFactories)
    func factsArePeoplesFactsAtEveryCommit(_ factory: StoreFactory) async throws {
        let events = Self.events(users: 240, seed: 5)
        var rng = SeededGenerator(seed: 9)
        let arrivals = events.shuffled(using: &rng)
        let reference = Reference(arrivals)
        #expect(reference.conflicts > 0 && reference.graph.personOf.count > 100)
        try await factory.withStore { store in
            var rest = arrivals[...]
            var sent: [Event] = []
            while !rest.isEmpty {
                let chunk = Array(rest.prefix(Int.random(in: 1...60, using: &rng)))
                rest = rest.dropFirst(chunk.count)
                _ = try store.appendAndWait(chunk)
                sent += chunk
                if Bool.random(using: &rng) { _ = try store.appendAndWait(chunk) }
                // Exact at every commit: checked now and then on the way.
                if Int.random(in: 0..<8, using: &rng) == 0 {
                    let partial = Reference(sent)
                    #expect(try store.facts(experiment: "alpha") == partial.facts(experiment: "alpha"))
                }
            }
            for experiment in RandomEvents.experiments {
                let expected = reference.facts(experiment: experiment)
                #expect(try store.facts(experiment: experiment) == expected, "\(experiment)")
                let asOf = RandomEvents.origin.adding(hours: 24 * 12)
                let revenue = try store.netRevenue(experiment: experiment, asOf: asOf, since: nil, until: nil)
                var want: [UserID: Double] = [:]
                for f in reference.facts(experiment: experiment, asOf: asOf) {
                    let ids = reference.byPerson[f.userID] ?? [:]
                    if ids.values.joined().contains(where: { $0.type.carriesRevenue && $0.revenue != nil && $0.timestamp >= f.firstExposure && $0.timestamp <= asOf }) {
                        want[f.userID] = f.netRevenue
                    }
                }
                #expect(revenue == want, "\(experiment) as of \(asOf)")
            }
            #expect(try store.identityConflicts() == reference.conflicts)
            let several = Set(reference.graph.personOf.filter { $0.key != $0.value }.values)
            #expect(!several.isEmpty)
            #expect(try store.personsOfSeveralIds() == several)
            let sticky = try store.makeStickyReader(maxIdle: 1)
            for (id, person) in reference.graph.personOf.sorted(by: { $0.key < $1.key }).prefix(60) {
                #expect(try store.person(of: id) == person)
                let arms = reference.facts(experiment: "alpha").first { $0.userID == person }?.variant
                #expect(try sticky.exposedVariant(experiment: "alpha", userID: id) == arms, "\(id) of \(person)")
            }
        }
    }

    /// The same three events in every order, each in its own commit: one person, one conversion.
    @Test(arguments: storeFactories)
    func anonymousExposureKnownPurchaseInEveryOrder(_ factory: StoreFactory) async throws {
        let exposure = F.exposure("x1", user: "anon", experiment: "A", variant: "name", hours: 1)
        let identify = Event(id: "identify:acct", type: .identified, userID: "anon", timestamp: F.at(2), identity: "acct")
        let purchase = F.event("p1", .purchased, user: "acct", hours: 3, revenue: 9.99)
        for order in permutations([exposure, identify, purchase]) {
            try await factory.withStore { store in
                for e in order { _ = try store.appendAndWait([e]) }
                let facts = try store.facts(experiment: "A")
                #expect(facts.count == 1 && facts.first?.userID == "acct" && facts.first?.variant == "name"
                        && facts.first?.firstPaid == F.at(3) && facts.first?.netRevenue == 9.99, "\(order.map(\.type))")
                let sticky = try store.makeStickyReader(maxIdle: 1)
                #expect(try sticky.exposedVariant(experiment: "A", userID: "acct") == "name")
                #expect(try sticky.exposedVariant(experiment: "A", userID: "anon") == "name")
                #expect(try store.person(of: "anon") == "acct")
            }
        }
    }

    /// A store account: a payment under the token (an App Store notification whose token no exposure
    /// named yet) before or after the exposure that names it, and a log-in, in every order.
    @Test(arguments: storeFactories)
    func aStoreAccountJoinsThePersonInEveryOrder(_ factory: StoreFactory) async throws {
        let token = "3f1c2b4a-9d8e-4f7a-8b6c-5d4e3f2a1b0c"
        let exposure = Event(id: "x1", type: .exposure, userID: "anon", timestamp: F.at(1), experiment: "A", variant: "ai", storeAccountID: token)
        let identify = Event(id: "identify:acct", type: .identified, userID: "anon", timestamp: F.at(2), identity: "acct")
        let purchase = F.event("n1", .purchased, user: UserID(token), hours: 3, revenue: 9.99)
        for order in permutations([exposure, identify, purchase]) {
            try await factory.withStore { store in
                for e in order { _ = try store.appendAndWait([e]) }
                let facts = try store.facts(experiment: "A")
                #expect(facts.count == 1 && facts.first?.userID == "acct" && facts.first?.paid == true && facts.first?.netRevenue == 9.99,
                        "\(order.map(\.type)): \(facts)")
                #expect(try store.person(of: UserID(token)) == "acct")
                // Not an identify: the token is not known, and the anonymous id kept its own link.
                #expect(try store.identityConflicts() == 0)
            }
        }
    }

    @Test(arguments: storeFactories)
    func knownIdsNeverMergeAndALaterIdentifyIsAConflict(_ factory: StoreFactory) async throws {
        try await factory.withStore { store in
            func identify(_ user: UserID, _ identity: UserID, hours: Double) -> Event {
                Event(id: "identify:\(identity)", type: .identified, userID: user, timestamp: F.at(hours), identity: identity)
            }
            _ = try store.appendAndWait([F.exposure("x1", user: "phone", experiment: "A", variant: "name", hours: 1),
                                         F.exposure("x1", user: "tablet", experiment: "A", variant: "ai", hours: 2),
                                         F.exposure("x1", user: "b", experiment: "A", variant: "control", hours: 0)])
            _ = try store.appendAndWait([identify("phone", "a", hours: 3)])
            _ = try store.appendAndWait([identify("phone", "a", hours: 3)])      // a repeat: nothing new
            _ = try store.appendAndWait([identify("phone", "b", hours: 4)])      // a second known id: a conflict
            _ = try store.appendAndWait([identify("a", "b", hours: 5)])          // two known ids: a conflict
            _ = try store.appendAndWait([identify("tablet", "a", hours: 6)])     // a second device of a
            #expect(try store.identityConflicts() == 2)
            #expect(try store.person(of: "phone") == "a" && store.person(of: "tablet") == "a" && store.person(of: "b") == "b")
            let facts = try store.facts(experiment: "A")
            #expect(facts.map(\.userID) == ["a", "b"])
            // The person keeps the arm of its first exposure and counts as crossed over.
            #expect(facts[0].variant == "name" && facts[0].crossedOver && facts[0].firstExposure == F.at(1))
            #expect(facts[1].variant == "control" && !facts[1].crossedOver)
        }
    }

    /// The sticky record is the person's, through the store's sticky reader: the known id of a
    /// person whose anonymous id was exposed gets that arm though targeting leaves it out (it logs
    /// in on another platform); an id of its own with a record is left out by targeting, which
    /// assign checks before an id's own sticky record.
    @Test(arguments: storeFactories)
    func aLinkedIDGetsItsPersonsArmBeforeTargeting(_ factory: StoreFactory) async throws {
        try await factory.withStore { store in
            _ = try store.appendAndWait([F.exposure("x1", user: "anon", experiment: "A", variant: "name", hours: 1),
                                         F.exposure("x1", user: "solo", experiment: "A", variant: "ai", hours: 1)])
            _ = try store.appendAndWait([Event(id: "identify:acct", type: .identified, userID: "anon", timestamp: F.at(2), identity: "acct")])
            let reader = try store.makeStickyReader(maxIdle: 1)
            #expect(try reader.exposedVariantsAndLink(experiments: ["A", "B"], userID: "acct") == StickyAnswers(variants: ["name", nil], linked: true))
            #expect(try reader.exposedVariantsAndLink(experiments: ["A"], userID: "anon") == StickyAnswers(variants: ["name"], linked: true))
            #expect(try reader.exposedVariantsAndLink(experiments: ["A"], userID: "solo") == StickyAnswers(variants: ["ai"], linked: false))
            #expect(try reader.exposedVariantsAndLink(experiments: ["A"], userID: "stranger") == StickyAnswers(variants: [nil], linked: false))
            #expect(try reader.exposedVariants(experiments: ["A", "B"], userID: "acct") == ["name", nil])
            // The completion form (a remote store's assign path).
            let viaCompletion = try await withCheckedThrowingContinuation { (c: CheckedContinuation<StickyAnswers, any Error>) in
                reader.exposedVariantsAndLink(experiments: ["B", "A"], userID: "acct") { c.resume(with: $0) }
            }
            #expect(viaCompletion == StickyAnswers(variants: [nil, "name"], linked: true))

            struct Lookup: StickyLookup {
                let reader: any StickyReader
                func stickyVariant(experimentID: String, userID: UserID) -> String? {
                    (try? reader.exposedVariant(experiment: experimentID, userID: userID)) ?? nil
                }
                func stickyRecords(experimentIDs: [String], userID: UserID) -> (variants: [String?], linked: Bool) {
                    let a = try? reader.exposedVariantsAndLink(experiments: experimentIDs, userID: userID)
                    return (a?.variants ?? experimentIDs.map { _ in nil }, a?.linked ?? false)
                }
            }
            let e = try AssignableExperiment(id: "A", status: .running, targeting: Targeting(platform: ["ios"]), sticky: true,
                                             variants: [("control", 1), ("name", 1), ("ai", 1)])
            let assigner = Assigner(experiments: [e], sticky: Lookup(reader: reader))
            let android: Attributes = ["platform": .string("android")], ios: Attributes = ["platform": .string("ios")]
            func answer(_ user: UserID, _ attributes: Attributes) -> (Assignment.Reason, String?) {
                let a = assigner.assign(userID: user, attributes: attributes)[0]
                return (a.reason, a.variantKey)
            }
            #expect(answer("acct", android) == (.sticky, "name"))
            #expect(answer("anon", android) == (.sticky, "name"))
            #expect(answer("acct", ios) == (.sticky, "name"))
            #expect(answer("solo", android) == (.targeting, nil))
            #expect(answer("solo", ios) == (.sticky, "ai"))
            #expect(answer("stranger", android) == (.targeting, nil))
        }
    }

    /// `unmatched_store_payments` as a report reads it: App Store and Google Play payments in
    /// a window, and those under a token (a lowercase UUID) that no exposure named and no person holds.
    @Test(arguments: storeFactories)
    func storePaymentsCountThoseUnderAnUnknownToken(_ factory: StoreFactory) async throws {
        let named = "3f1c2b4a-9d8e-4f7a-8b6c-5d4e3f2a1b0c", unknown = "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d"
        func pay(_ id: EventID, _ type: EventType, _ user: String, hours: Double, store: PaymentStore) -> Event {
            Event(id: id, type: type, userID: UserID(user), timestamp: F.at(hours), revenue: type.carriesRevenue ? 9.99 : nil,
                  currency: "USD", store: store, proceeds: type.carriesRevenue ? 6.99 : nil)
        }
        try await factory.withStore { store in
            _ = try store.appendAndWait([
                Event(id: "x1", type: .exposure, userID: "anon", timestamp: F.at(1), experiment: "A", variant: "ai", storeAccountID: named),
                pay("p1", .purchased, named, hours: 2, store: .appStore),          // matched: the exposure named it
                pay("p2", .purchased, unknown, hours: 3, store: .appStore),        // unmatched
                pay("p3", .renewed, unknown, hours: 4, store: .googlePlay),        // unmatched
                pay("p4", .renewed, "acct-1", hours: 4, store: .googlePlay),       // not a token
                pay("p5", .purchased, "0a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d", hours: 4, store: .stripe),   // not a store payment
                pay("t1", .trialStarted, unknown, hours: 2, store: .appStore),     // not a payment
            ])
            #expect(try store.storePayments(since: nil, until: F.at(10)) == (4, 2))
            #expect(try store.storePayments(since: F.at(2.5), until: F.at(10)) == (3, 2))
            #expect(try store.storePayments(since: nil, until: F.at(2.5)) == (1, 0))
            // An exposure naming the token later: its payments become the person's.
            _ = try store.appendAndWait([Event(id: "x2", type: .exposure, userID: "other", timestamp: F.at(5), experiment: "A",
                                               variant: "ai", storeAccountID: unknown)])
            #expect(try store.storePayments(since: nil, until: F.at(10)) == (4, 0))
        }
    }

    /// Two writers on the same data (two nodes on one PostgreSQL database): an exposure on one,
    /// an identify on the other, a purchase on the first, in every order and at once.
    @Test(arguments: storeFactories)
    func twoNodesGiveOnePersonWithOneConversion(_ factory: StoreFactory) async throws {
        let people = 60
        var events: [(node: Int, event: Event)] = []
        for p in 0..<people {
            events.append((0, F.exposure("x", user: "anon-\(p)", experiment: "A", variant: p % 2 == 0 ? "name" : "ai", hours: 1)))
            events.append((1, Event(id: "identify:acct-\(p)", type: .identified, userID: "anon-\(p)", timestamp: F.at(2), identity: "acct-\(p)")))
            events.append((0, F.event("p", .purchased, user: "acct-\(p)", hours: 3, revenue: 9.99)))
        }
        var rng = SeededGenerator(seed: 21)
        try await factory.withTwoStores { a, b in
            let nodes = [a, b]
            // Every order of the three, at once across people.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for p in 0..<people {
                    let mine = Array(events[(3 * p)..<(3 * p + 3)]).shuffled(using: &rng)
                    group.addTask {
                        for (node, e) in mine { _ = try nodes[node].appendAndWait([e]) }
                    }
                }
                try await group.waitForAll()
            }
            for store in nodes {
                let facts = try store.facts(experiment: "A")
                #expect(facts.count == people)
                #expect(facts.allSatisfy { $0.userID.text.hasPrefix("acct-") && $0.firstPaid == F.at(3) && $0.netRevenue == 9.99 })
                #expect(try store.identityConflicts() == 0)
            }
        }
    }
}

func permutations<T>(_ items: [T]) -> [[T]] {
    guard items.count > 1 else { return [items] }
    return items.indices.flatMap { i -> [[T]] in
        var rest = items
        let first = rest.remove(at: i)
        return permutations(rest).map { [first] + $0 }
    }
}
