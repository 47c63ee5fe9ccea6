import Events
import ExperimentDefinitions
import PostgresStore
import TestSupport

/// A PostgresEventStore on a fresh database of the test process's cluster.
func withPostgresStore<T>(options: PostgresEventStore.Options = .init(), _ body: (PostgresEventStore, String) async throws -> T) async throws -> T {
    let url = try PostgresCluster.shared().createDatabase()
    let store = try PostgresEventStore(url: url, options: options)
    defer { store.close() }
    return try await body(store, url)
}

/// What `FactsBuilder` makes of a set of events (first copy of each (user, event id) kept), by user.
func expectedFacts(_ events: [Event]) -> [UserID: [UserFacts]] {
    struct Key: Hashable { var user: UserID, event: EventID }
    var seen = Set<Key>()
    var byUser: [UserID: [FactsBuilder.Source]] = [:]
    for e in events where seen.insert(Key(user: e.userID, event: e.id)).inserted {
        byUser[e.userID, default: []].append(FactsBuilder.Source(
            type: e.type, ts: e.timestamp.microseconds, experiment: e.experiment, variant: e.variant,
            revenueContribution: e.type.revenueContribution(e.revenue), copySource: e.copySource,
            copyFallbackReason: e.copyFallbackReason, eventID: e.id))
    }
    return Dictionary(uniqueKeysWithValues: byUser.map { user, sources in
        (user, FactsBuilder.facts(userID: user, events: sources).sorted { $0.experiment < $1.experiment })
    })
}

/// Random users' events over two experiments: every type, revenue with cents, event ids that
/// repeat across users (unless `globalIDs`), and user ids with characters COPY must escape.
func randomEvents(users: Int, perUser: ClosedRange<Int>, seed: UInt64, globalIDs: Bool = false) -> [Event] {
    var rng = SeededGenerator(seed: seed)
    let names = ["plain", "tab\there", "back\\slash", "quote\"d", "naïve-ü", "line\nbreak"]
    var events: [Event] = []
    for u in 0..<users {
        let user: UserID = "\(names[u % names.count])-\(u)"
        for n in 0..<Int.random(in: perUser, using: &rng) {
            let type = EventType.allCases.randomElement(using: &rng)!
            let hours = Double(Int.random(in: 0..<400, using: &rng)) / 4
            let id: EventID = globalIDs ? "e\(u)-\(n)" : "e\(n)"
            if type == .exposure {
                let experiment = Bool.random(using: &rng) ? "A" : "B"
                let variant = ["control", "treatment"].randomElement(using: &rng)!
                events.append(Event(id: id, type: .exposure, userID: user, timestamp: EventFactory.at(hours), experiment: experiment,
                                    variant: variant, copySource: Bool.random(using: &rng) ? .fallback : nil,
                                    copyText: "A line\twith a tab", copyFallbackReason: Bool.random(using: &rng) ? "empty_brief" : nil))
            } else {
                let revenue = type.carriesRevenue ? Double(Int.random(in: 1...9999, using: &rng)) / 100 : nil
                events.append(Event(id: id, type: type, userID: user, timestamp: EventFactory.at(hours), revenue: revenue,
                                    currency: revenue == nil ? nil : "USD"))
            }
        }
    }
    return events
}
