import Events
import ExperimentDefinitions
import Testing
import TestSupport

/// The console's freshness in the store, the same on every store and seen by a second node on the
/// same data: each experiment's change counter moves with the write that stores events touching
/// it, and only then; a stored report is read back whole by every node.
struct ConsoleReportConformanceTests {
    typealias F = EventFactory

    @Test(arguments: storeFactories)
    func aCounterMovesWithEventsTouchingItsExperimentOnly(_ factory: StoreFactory) async throws {
        try await factory.withTwoStores { (first: any EventStore, second: any EventStore) async throws in
            #expect(try first.experimentChangeCounters().isEmpty)
            _ = try first.appendAndWait([F.exposure("x1", user: "u1", experiment: "A", variant: "control", hours: 1),
                                         F.exposure("x2", user: "u2", experiment: "B", variant: "control", hours: 1)])
            let start = try second.experimentChangeCounters()
            #expect((start["A"] ?? 0) > 0 && (start["B"] ?? 0) > 0, "\(start)")
            // A trial of u1 moves A, the one experiment u1 is in, through the other node.
            _ = try second.appendAndWait([F.event("t1", .trialStarted, user: "u1", hours: 2)])
            let afterTrial = try first.experimentChangeCounters()
            #expect(afterTrial["A"]! > start["A"]!)
            #expect(afterTrial["B"] == start["B"])
            // A user in no experiment touches none; a repeat of a stored event stores nothing.
            _ = try first.appendAndWait([F.event("t9", .trialStarted, user: "u9", hours: 2)])
            _ = try first.appendAndWait([F.event("t1", .trialStarted, user: "u1", hours: 2)])
            #expect(try second.experimentChangeCounters() == afterTrial)
            // A user exposed to both: a payment moves both.
            _ = try first.appendAndWait([F.exposure("x3", user: "u2", experiment: "A", variant: "name", hours: 3)])
            let both = try first.experimentChangeCounters()
            _ = try second.appendAndWait([F.event("p2", .purchased, user: "u2", hours: 4, revenue: 9.99)])
            let paid = try first.experimentChangeCounters()
            #expect(paid["A"]! > both["A"]! && paid["B"]! > both["B"]!, "\(both) then \(paid)")
            // A bulk load moves them too.
            let done = AsyncStream.makeStream(of: Bool.self)
            second.submitBulk([F.event("r2", .renewed, user: "u2", hours: 700, revenue: 9.99)], commitEvery: 10_000, consumed: {}) {
                done.continuation.yield((try? $0.get()) != nil)
            }
            try second.flush()
            for await ok in done.stream { #expect(ok); break }
            let bulk = try first.experimentChangeCounters()
            #expect(bulk["A"]! > paid["A"]! && bulk["B"]! > paid["B"]!, "\(paid) then \(bulk)")
        }
    }

    @Test(arguments: storeFactories)
    func aStoredReportIsEveryNodesAndTheLatestReplacesIt(_ factory: StoreFactory) async throws {
        try await factory.withTwoStores { (first: any EventStore, second: any EventStore) async throws in
            #expect(try second.consoleReport(experiment: "chorus-voice") == nil)
            #expect(try second.consoleReports(bodies: true).isEmpty)
            let voice = StoredConsoleReport(experiment: "chorus-voice", counter: 7, inputs: "loaded 2026-12-01T00:00:00Z; stops ",
                                            generatedAt: F.at(24), computedAt: F.at(24.5), summary: #"{"users":12}"#,
                                            body: "<section>Verdict: \u{E9} <script></section>")
            let trial = StoredConsoleReport(experiment: "chorus-trial-length", counter: 0, inputs: "", generatedAt: F.at(1),
                                            computedAt: F.at(2), summary: "{}", body: "<p>trial</p>")
            try first.keepConsoleReport(voice)
            try first.keepConsoleReport(trial)
            #expect(try second.consoleReport(experiment: "chorus-voice") == voice)
            #expect(try second.consoleReports(bodies: true) == ["chorus-voice": voice, "chorus-trial-length": trial])
            // Without bodies: the same rows, the body left out.
            var bare = voice
            bare.body = ""
            #expect(try second.consoleReports(bodies: false)["chorus-voice"] == bare)
            // A later computation replaces it, whichever node stores it.
            var later = voice
            later.counter = 9
            later.computedAt = F.at(30)
            later.body = "<p>later</p>"
            try second.keepConsoleReport(later)
            #expect(try first.consoleReport(experiment: "chorus-voice") == later)
            #expect(try first.consoleReports(bodies: false).count == 2)
        }
    }
}
