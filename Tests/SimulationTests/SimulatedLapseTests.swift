import Assignment
import Events
import ExperimentDefinitions
import Foundation
import Testing
@testable import Simulation

/// A cancel that stood lapses as the stores say it: an `expired` of reason `voluntary` when its paid
/// period (here the trial) runs out; an undone cancel gets none; and the cancel with its expiry is one
/// end of the subscription, at the cancel, never two.
@Suite struct SimulatedLapseTests {
    @Test func aCancelThatStoodExpiresVoluntarilyAtTheEndOfItsPeriod() throws {
        var truth = Truth()
        truth.defaultRates.uncancel = 0.3
        let s = Simulator(catalog: SimulatorTests.catalog, assigner: try Assigner(catalog: SimulatorTests.catalog), truth: truth,
                          options: .init(users: 3000, seed: 11, days: 14))
        var byUser: [UserID: [Event]] = [:]
        _ = try s.run(batchSize: 1000) { batch in
            for e in batch { byUser[e.userID, default: []].append(e) }
            return AppendResult(stored: batch.count)
        }
        var lapsed = 0, undone = 0
        for (user, events) in byUser {
            let ordered = events.sorted { $0.timestamp < $1.timestamp }
            let voluntary = ordered.filter { $0.type == .expired && $0.reason == .voluntary }
            if ordered.contains(where: { $0.type == .uncancelled }) {
                undone += 1
                #expect(voluntary.isEmpty, "\(user): an undone cancel lapses not")
                continue
            }
            guard let expiry = voluntary.first else { continue }
            lapsed += 1
            #expect(voluntary.count == 1)
            let cancel = try #require(ordered.last { $0.type == .cancelled && $0.timestamp <= expiry.timestamp }, "\(user): a lapse follows a cancel")
            // The trial's end: the cancel's period.
            if let start = ordered.first(where: { $0.type == .trialStarted }), let days = start.trialDays {
                #expect(expiry.timestamp == start.timestamp.adding(hours: Double(days) * 24))
            }
            for f in FactsBuilder.facts(userID: user, events: events) where f.trialStart != nil {
                #expect(f.end(before: .max)?.at == cancel.timestamp.microseconds && f.end(before: .max)?.kind == .voluntary)
                #expect(f.laterEnds.isEmpty)
            }
        }
        #expect(lapsed > 100 && undone > 20, "lapsed \(lapsed), undone \(undone)")
    }
}
