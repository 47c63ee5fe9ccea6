import Foundation
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
