import Events
import Testing
import TestSupport

/// A placement's exposures counted by experiment over a window (the console's placements page),
/// the same on every store and seen by a second node on the same data.
struct PlacementExposureConformanceTests {
    @Test(arguments: storeFactories)
    func aPlacementsExposuresAreCountedByExperimentWithinTheWindow(_ factory: StoreFactory) async throws {
        typealias F = EventFactory
        try await factory.withTwoStores { (first: any EventStore, second: any EventStore) async throws in
            _ = try first.appendAndWait([
                // Before the window: not counted.
                F.exposure("old", user: "u0", experiment: "A", variant: "control", hours: 1, placement: "onboarding_end"),
                F.exposure("a1", user: "u1", experiment: "A", variant: "control", hours: 10, placement: "onboarding_end"),
                F.exposure("a2", user: "u2", experiment: "A", variant: "ai", hours: 11, placement: "onboarding_end"),
                // The same user exposed again counts again: exposures, not people.
                F.exposure("a3", user: "u2", experiment: "A", variant: "ai", hours: 12, placement: "onboarding_end"),
                F.exposure("b1", user: "u3", experiment: "B", variant: "control", hours: 13, placement: "onboarding_end"),
                // Another placement, and an exposure with none: neither is this placement's.
                F.exposure("c1", user: "u4", experiment: "A", variant: "ai", hours: 14, placement: "feature_gate"),
                F.exposure("d1", user: "u5", experiment: "A", variant: "ai", hours: 15),
                // At the window's end: outside (the end is open).
                F.exposure("late", user: "u6", experiment: "B", variant: "ai", hours: 20, placement: "onboarding_end"),
                // A purchase is no exposure.
                F.event("p1", .purchased, user: "u1", hours: 16, revenue: 9.99),
            ])
            let since = F.at(5), until = F.at(20)
            #expect(try second.exposures(placement: "onboarding_end", since: since, until: until) == ["A": 3, "B": 1])
            #expect(try second.exposures(placement: "feature_gate", since: since, until: until) == ["A": 1])
            #expect(try first.exposures(placement: "settings", since: since, until: until).isEmpty)
            #expect(try first.exposures(placement: "onboarding_end", since: F.at(0), until: F.at(21)) == ["A": 4, "B": 2])
        }
    }
}
