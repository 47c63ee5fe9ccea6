import Events
import ExperimentDefinitions
import PostgresStore
import SQLiteStore
import Testing
import TestSupport

/// Store identities and granted trials, the same on every store: an exposure keeps its
/// `store_account_id` and the webhooks find the user through it; a trial start keeps its
/// `trial_days`, and the facts keep the granted trial of the first trial start after exposure.
struct StoreAccountConformanceTests {
    typealias F = EventFactory

    @Test(arguments: storeFactories)
    func anExposureKeepsItsStoreAccountIDAndTheUserIsFoundByIt(_ factory: StoreFactory) async throws {
        try await factory.withStore { (store: any EventStore) async throws in
            let token = "6f1a3c2e-8d4b-4f7a-9c0e-2b5d7e9f1a3c"
            #expect(try store.user(forStoreAccount: token) == nil)
            var exposure = F.exposure("x1", user: "user with spaces é", experiment: "A", variant: "ai", hours: 2)
            exposure.storeAccountID = token
            var later = F.exposure("x2", user: "someone else", experiment: "A", variant: "control", hours: 5)
            later.storeAccountID = token
            _ = try store.appendAndWait([later])
            _ = try store.appendAndWait([exposure, F.exposure("x3", user: "third", experiment: "A", variant: "ai", hours: 1)])
            // The earliest exposure carrying the id names the user, whatever order they arrived in.
            #expect(try store.user(forStoreAccount: token) == "user with spaces é")
            #expect(try store.user(forStoreAccount: token.uppercased()) == nil)
            #expect(try store.user(forStoreAccount: "") == nil)
            let stored = try storedEvents(store, "user with spaces é")
            #expect(stored.map(\.storeAccountID) == [token])
            #expect(try storedEvents(store, "third").map(\.storeAccountID) == [nil])
        }
    }

    @Test(arguments: storeFactories)
    func aTrialStartKeepsTheGrantedTrialAndTheFactsKeepTheFirst(_ factory: StoreFactory) async throws {
        try await factory.withStore { (store: any EventStore) async throws in
            var early = F.event("t0", .trialStarted, user: "u", hours: 1)
            early.trialDays = 14   // before the exposure: not this experiment's trial
            var first = F.event("t1", .trialStarted, user: "u", hours: 3)
            first.trialDays = 3
            var second = F.event("t2", .trialStarted, user: "u", hours: 30)
            second.trialDays = 7
            _ = try store.appendAndWait([early, F.exposure("x1", user: "u", experiment: "A", variant: "ai", hours: 2)])
            _ = try store.appendAndWait([second])
            _ = try store.appendAndWait([first])
            let events = try storedEvents(store, "u")
            #expect(events.map(\.trialDays) == [14, nil, 3, 7])
            let facts = try #require(try store.facts(experiment: "A").first)
            #expect(facts.trialStart == F.at(3) && facts.grantedTrialDays == 3)
            // The builder agrees with what the store keeps.
            #expect(FactsBuilder.facts(userID: "u", events: events) == [facts])
            // A trial start that does not say leaves the facts without a granted trial.
            _ = try store.appendAndWait([F.exposure("y1", user: "v", experiment: "A", variant: "ai", hours: 2),
                                         F.event("v1", .trialStarted, user: "v", hours: 3)])
            #expect(try store.facts(experiment: "A").first { $0.userID == "v" }?.grantedTrialDays == nil)
        }
    }
}

/// A user's stored events in (ts, type, event_id) order; not part of the store protocols, so asked of each store's type.
private func storedEvents(_ store: any EventStore, _ user: UserID) throws -> [Event] {
    if let sqlite = store as? SQLiteEventStore { return try sqlite.events(userID: user) }
    if let postgres = store as? PostgresEventStore { return try postgres.events(userID: user) }
    Issue.record("no way to read \(type(of: store))'s events")
    return []
}
