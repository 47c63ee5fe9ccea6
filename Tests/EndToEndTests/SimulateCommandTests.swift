import Events
import Foundation
import SQLiteStore
import TestSupport
import Testing

@Suite struct SimulateCommandTests {
    @Test func aSeedStoresTheSameEventsOnce() async throws {
        let folder = TemporaryFolder()
        let db = folder.path + "/sim.sqlite"
        let first = try await Abctl.run(["simulate", "--users", "3000", "--db", db, "--seed", "4"])
        #expect(first.status == 0, "\(first.stderr)")
        let line = try #require(first.stdout.split(separator: "\n").first { $0.hasPrefix("events: ") })
        let events = try #require(Int(line.split(separator: " ")[1]))
        #expect(events > 3000)
        #expect(line.contains("(stored \(events), duplicate 0)"))
        #expect(first.stdout.contains("chorus-paywall-copy: ai "))
        let again = try await Abctl.run(["simulate", "--users", "3000", "--db", db, "--seed", "4"])
        #expect(again.stdout.contains("(stored 0, duplicate \(events))"), "\(again.stdout)")
    }

    /// Experiments that start after the present: no user arrives before observation ends, so the run
    /// says so, fails, and leaves no database behind (a later run would otherwise reuse what it wrote).
    @Test func aStoryThatObservesNobodyWritesNothing() async throws {
        let folder = TemporaryFolder()
        let db = folder.path + "/sim.sqlite"
        let r = try await Abctl.run(["simulate", "--users", "500", "--db", db], environment: ["ABCTL_NOW": "2026-11-01T00:00:00Z"])
        #expect(r.status == 3, "\(r.stdout)")
        #expect(r.stderr.contains("nothing to simulate: observation ends at the present, 2026-11-01T00:00:00Z, before any of the 500 users arrives"), "\(r.stderr)")
        #expect(r.stderr.contains("Nothing was written."), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: db))
    }

    /// A bandit's periods are recorded only for the part of the story that is observed: none starts
    /// at or after `--until`, though users keep arriving (unobserved) for 14 days.
    @Test func banditPeriodsEndWhereObservationEnds() async throws {
        let folder = TemporaryFolder()
        let db = folder.path + "/sim.sqlite"
        let until = "2026-11-05T12:00:00Z"
        let r = try await Abctl.run(["simulate", "--users", "4000", "--days", "14", "--db", db, "--until", until])
        #expect(r.status == 0, "\(r.stderr)")
        let store = try SQLiteEventStore(path: db)
        defer { store.close() }
        let periods = try store.allocationPeriods(experiment: "chorus-voice")
        let end = try #require(Timestamp(rfc3339: until))
        #expect(!periods.isEmpty, "the story's first days have periods")
        #expect(periods.allSatisfy { $0.from.microseconds < end.microseconds }, "\(periods.map(\.from.rfc3339))")
    }

    @Test func badArgumentsAndTruthFilesAreUsageErrors() async throws {
        let folder = TemporaryFolder()
        #expect(try await Abctl.run(["simulate", "--db", folder.path + "/x.sqlite"]).status == 2)
        #expect(try await Abctl.run(["simulate", "--users", "0", "--db", folder.path + "/x.sqlite"]).status == 2)
        let truth = folder.write("truth.json", #"{"default": {"trial_strat": 0.3}}"#)
        let r = try await Abctl.run(["simulate", "--users", "10", "--db", folder.path + "/x.sqlite", "--truth", truth])
        #expect(r.status == 2)
        #expect(r.stderr.contains("unknown key 'trial_strat'; did you mean 'trial_start'?"), "\(r.stderr)")
    }
}
