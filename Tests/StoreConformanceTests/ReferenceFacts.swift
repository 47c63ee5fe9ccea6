import Events

/// The facts every store must give for a set of events, computed in memory by `FactsBuilder`
/// over all of each user's events: the reference a store is compared with.
struct ReferenceFacts: FactsReader {
    /// Each user's events once (the first copy of each idempotency key), by user.
    let eventsByUser: [UserID: [Event]]

    init(_ events: [Event]) {
        struct Key: Hashable { var user: UserID, event: EventID }
        var seen: Set<Key> = []
        var byUser: [UserID: [Event]] = [:]
        for e in events where seen.insert(Key(user: e.userID, event: e.id)).inserted {
            byUser[e.userID, default: []].append(e)
        }
        eventsByUser = byUser
    }

    /// Every user's facts in `experiment`, in `user_id` byte order.
    func allFacts(experiment: String) -> [UserFacts] {
        eventsByUser.flatMap { FactsBuilder.facts(userID: $0.key, events: $0.value) }
            .filter { $0.experiment == experiment }
            .sorted { $0.userID < $1.userID }
    }

    func forEachFact(experiment: String, since: Timestamp?, until: Timestamp?, _ body: (UserFacts) throws -> Void) throws {
        for f in allFacts(experiment: experiment) where f.firstExposure >= (since ?? Timestamp(microseconds: .min))
            && f.firstExposure < (until ?? Timestamp(microseconds: .max)) {
            try body(f)
        }
    }

    /// Facts of the events up to `asOf`: the same first exposure for every user exposed by then,
    /// and revenue summed in FactsBuilder's order up to that instant.
    func netRevenue(experiment: String, asOf: Timestamp, since: Timestamp?, until: Timestamp?) throws -> [UserID: Double] {
        var revenue: [UserID: Double] = [:]
        for (user, events) in eventsByUser {
            let upToAsOf = events.filter { $0.timestamp <= asOf }
            for f in FactsBuilder.facts(userID: user, events: upToAsOf) where f.experiment == experiment
                && f.firstExposure >= (since ?? Timestamp(microseconds: .min)) && f.firstExposure < (until ?? Timestamp(microseconds: .max))
                && upToAsOf.contains(where: { $0.type.carriesRevenue && $0.revenue != nil && $0.timestamp >= f.firstExposure }) {
                revenue[user] = f.netRevenue
            }
        }
        return revenue
    }

    func experiments() throws -> [ExperimentSummary] {
        let all = eventsByUser.flatMap { FactsBuilder.facts(userID: $0.key, events: $0.value) }
        return Dictionary(grouping: all, by: \.experiment).map { id, facts in
            ExperimentSummary(experiment: id, users: facts.count, firstExposure: facts.map(\.firstExposure).min()!,
                              lastExposure: facts.map(\.firstExposure).max()!)
        }.sorted { $0.experiment < $1.experiment }
    }
}
