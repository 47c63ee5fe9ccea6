import Testing
import Events
import SQLiteStore
import TestSupport

private typealias F = EventFactory

/// One user's story across two experiments, with the facts it must produce.
private let story: [Event] = [
    F.event("s1", .trialStarted, user: "u", hours: -1),                         // before any exposure: ignored
    F.exposure("s2", user: "u", experiment: "A", variant: "ai", hours: 0, copySource: .fallback, fallbackReason: "empty_brief"),
    F.event("s3", .trialStarted, user: "u", hours: 0.5),
    F.exposure("s4", user: "u", experiment: "B", variant: "control", hours: 1),
    F.exposure("s5", user: "u", experiment: "A", variant: "name", hours: 2),    // re-exposure: variant stays "ai"
    F.event("s6", .cancelled, user: "u", hours: 3),
    F.event("s7", .converted, user: "u", hours: 7 * 24, revenue: 59.99),
    F.event("s8", .refunded, user: "u", hours: 8 * 24, revenue: 59.99),
    F.event("s9", .renewed, user: "u", hours: 9 * 24, revenue: 10),
]

private let storyFacts: [UserFacts] = [
    UserFacts(experiment: "A", userID: "u", variant: "ai", firstExposure: F.at(0), trialStart: F.at(0.5),
              firstPaid: F.at(7 * 24), firstConverted: F.at(7 * 24), firstCancel: F.at(3), refundedAt: F.at(8 * 24),
              netRevenue: 59.99 - 59.99 + 10,
              revenueEntries: [RevenueEntry(offset: hours(7 * 24), amount: 59.99), RevenueEntry(offset: hours(8 * 24), amount: -59.99),
                               RevenueEntry(offset: hours(9 * 24), amount: 10)],
              crossedOver: true, copySource: .fallback, copyFallbackReason: "empty_brief"),
    UserFacts(experiment: "B", userID: "u", variant: "control", firstExposure: F.at(1), trialStart: nil,
              firstPaid: F.at(7 * 24), firstConverted: F.at(7 * 24), firstCancel: F.at(3), refundedAt: F.at(8 * 24),
              netRevenue: 10,
              revenueEntries: [RevenueEntry(offset: hours(7 * 24 - 1), amount: 59.99), RevenueEntry(offset: hours(8 * 24 - 1), amount: -59.99),
                               RevenueEntry(offset: hours(9 * 24 - 1), amount: 10)]),
]

/// Microseconds in `h` hours: revenue entries are kept by offset from the first exposure.
private func hours(_ h: Double) -> Int64 { Int64(h * 3_600_000_000) }

@Test func factsFollowTheStory() async throws {
    try await withTemporaryStore { store, _ in
        _ = try await store.append(story)
        #expect(try store.facts(userID: "u") == storyFacts)
        #expect(try store.facts(experiment: "A") == [storyFacts[0]])
        #expect(try ExposureLookup(store: store, maxIdle: 1).exposedVariant(experiment: "A", userID: "u") == "ai")
        #expect(try ExposureLookup(store: store, maxIdle: 1).exposedVariant(experiment: "C", userID: "u") == nil)
        let a = try #require(try store.facts(experiment: "A").first)
        #expect(a.isDay0Cancel())
        #expect(!a.isDay0Cancel(windowHours: 2))
        #expect(a.cancelledDuringTrial(trialDays: 7))
        #expect(!(try store.facts(experiment: "B").first!).isDay0Cancel())   // no trial in B's window
    }
}

@Test func factsAreTheSameForAnyArrivalOrder() async throws {
    var rng = SeededGenerator(seed: 42)
    for round in 0..<25 {
        let shuffled = story.shuffled(using: &rng)
        // Arrive in random chunks, as late webhooks do.
        var chunks: [[Event]] = []
        var rest = shuffled[...]
        while !rest.isEmpty {
            let n = Int.random(in: 1...3, using: &rng)
            chunks.append(Array(rest.prefix(n)))
            rest = rest.dropFirst(n)
        }
        try await withTemporaryStore { store, _ in
            for chunk in chunks { _ = try await store.append(chunk) }
            #expect(try store.facts(userID: "u") == storyFacts, "round \(round): \(shuffled.map(\.id))")
        }
    }
}

@Test func everyEventTypeLandsInItsFact() async throws {
    try await withTemporaryStore { store, _ in
        _ = try await store.append([
            F.exposure("x1", user: "p", experiment: "E", variant: "v", hours: 0, copySource: .server),
            F.event("x2", .purchased, user: "p", hours: 1, revenue: 9.99),
            F.event("x3", .renewed, user: "p", hours: 721, revenue: 9.99),
            F.event("x4", .cancelled, user: "p", hours: 800),
        ])
        let f = try #require(try store.facts(experiment: "E").first)
        #expect(f.firstPaid == F.at(1))
        #expect(f.firstConverted == nil)         // purchased is paid, not a trial conversion
        #expect(f.trialStart == nil)
        #expect(f.firstCancel == F.at(800))
        #expect(!f.isDay0Cancel())               // no trial, so no Day-0 cancel
        #expect(abs(f.netRevenue - 19.98) < 1e-9)
        #expect(f.copySource == .server)
        #expect(f.refundedAt == nil && !f.isRefunded)
    }
}

@Test func eventsBeforeTheFirstExposureAreIgnored() async throws {
    try await withTemporaryStore { store, _ in
        _ = try await store.append([
            F.event("b1", .trialStarted, user: "late", hours: 0),
            F.event("b2", .cancelled, user: "late", hours: 1),
            F.event("b3", .purchased, user: "late", hours: 2, revenue: 5),
            F.exposure("b4", user: "late", experiment: "E", variant: "v", hours: 3),
            F.event("b5", .renewed, user: "late", hours: 4, revenue: 7),
        ])
        let f = try #require(try store.facts(experiment: "E").first)
        #expect(f.trialStart == nil && f.firstCancel == nil && f.firstPaid == nil)
        #expect(f.netRevenue == 7)
        // A user with no exposure has no facts at all.
        _ = try await store.append([F.event("b6", .purchased, user: "never", hours: 1, revenue: 3)])
        #expect(try store.facts(userID: "never").isEmpty)
        #expect(try store.events(userID: "never").count == 1)
    }
}

@Test func purchasesBelongToEveryExperimentSeenBefore() async throws {
    try await withTemporaryStore { store, _ in
        _ = try await store.append([
            F.exposure("m1", user: "u", experiment: "one", variant: "a", hours: 0),
            F.exposure("m2", user: "u", experiment: "two", variant: "b", hours: 1),
            F.exposure("m3", user: "u", experiment: "three", variant: "c", hours: 5),
            F.event("m4", .purchased, user: "u", hours: 2, revenue: 20),    // after one and two, before three
            F.event("m5", .renewed, user: "u", hours: 5, revenue: 20),      // at three's exposure: counts for all
        ])
        let byExperiment = Dictionary(uniqueKeysWithValues: try store.facts(userID: "u").map { ($0.experiment, $0) })
        #expect(byExperiment["one"]?.firstPaid == F.at(2) && byExperiment["one"]?.netRevenue == 40)
        #expect(byExperiment["two"]?.firstPaid == F.at(2) && byExperiment["two"]?.netRevenue == 40)
        #expect(byExperiment["three"]?.firstPaid == nil && byExperiment["three"]?.netRevenue == 20)
    }
}

@Test func simultaneousExposuresBreakTiesByEventID() async throws {
    for order: [EventID] in [["t-b", "t-a"], ["t-a", "t-b"]] {
        try await withTemporaryStore { store, _ in
            for id in order {
                _ = try await store.append([F.exposure(id, user: "u", experiment: "E", variant: id == "t-a" ? "first" : "second", hours: 0)])
            }
            #expect(try ExposureLookup(store: store, maxIdle: 1).exposedVariant(experiment: "E", userID: "u") == "first")
        }
    }
}

@Test func day0CancelUsesTheWindowAndTheTrialStart() async throws {
    try await withTemporaryStore { store, _ in
        var events: [Event] = []
        // hours from trial start to cancel; nil = never cancelled
        let cases: [(UserID, Double?)] = [("quick", 2), ("edge", 24), ("late", 30), ("never", nil)]
        for (i, (user, cancelAfter)) in cases.enumerated() {
            events.append(F.exposure("d\(i)e", user: user, experiment: "E", variant: "v", hours: 0))
            events.append(F.event("d\(i)t", .trialStarted, user: user, hours: 1))
            if let cancelAfter { events.append(F.event("d\(i)c", .cancelled, user: user, hours: 1 + cancelAfter)) }
        }
        // A cancel before the trial began is not a trial cancel.
        events.append(F.exposure("d9e", user: "before", experiment: "E", variant: "v", hours: 0))
        events.append(F.event("d9c", .cancelled, user: "before", hours: 0.5))
        events.append(F.event("d9t", .trialStarted, user: "before", hours: 1))
        _ = try await store.append(events)
        let facts = Dictionary(uniqueKeysWithValues: try store.facts(experiment: "E").map { ($0.userID, $0) })
        #expect(facts["quick"]!.isDay0Cancel() && facts["edge"]!.isDay0Cancel())
        #expect(!facts["late"]!.isDay0Cancel() && !facts["never"]!.isDay0Cancel() && !facts["before"]!.isDay0Cancel())
        #expect(facts["late"]!.isDay0Cancel(windowHours: 48))
        #expect(facts["before"]!.firstCancel == nil)
        let counts = try store.day0Cancels(experiment: "E")
        #expect(counts["v"]?.trialStarters == 5 && counts["v"]?.day0Cancels == 2)
        #expect(try store.day0Cancels(experiment: "E", windowHours: 48)["v"]?.day0Cancels == 3)
    }
}

@Test func readsBoundByFirstExposureAndListExperiments() async throws {
    try await withTemporaryStore { store, _ in
        var events: [Event] = []
        for i in 0..<10 {
            events.append(F.exposure("r\(i)", user: "user\(i)", experiment: i < 7 ? "big" : "small", variant: i % 2 == 0 ? "a" : "b", hours: Double(i)))
        }
        _ = try await store.append(events)
        #expect(try store.facts(experiment: "big").map(\.userID) == (0..<7).map { "user\($0)" })
        #expect(try store.facts(experiment: "big", since: F.at(2), until: F.at(5)).map(\.userID) == ["user2", "user3", "user4"])
        #expect(try store.facts(experiment: "big", since: F.at(6)).map(\.userID) == ["user6"])
        #expect(try store.facts(experiment: "big", until: F.at(1)).map(\.userID) == ["user0"])
        let summaries = try store.experiments()
        #expect(summaries.map(\.experiment) == ["big", "small"])
        #expect(summaries.map(\.users) == [7, 3])
        #expect(summaries[1].firstExposure == F.at(7) && summaries[1].lastExposure == F.at(9))
        #expect(try store.userCounts(experiment: "big") == ["a": 4, "b": 3])
        #expect(try store.counts() == StoreCounts(events: 10, facts: 10, experiments: 2))
    }
}
