import Events
import ExperimentDefinitions
import Foundation
import Testing
@testable import Reporting

/// When the share of people with merged ids differs between arms (chi-square, p < 0.001),
/// the report's health says `identity_imbalance`, in every format; equal shares say nothing.
@Suite struct IdentityImbalanceTests {
    typealias F = Fixtures

    /// 400 users per arm of `F.experiment()` (control, ai); `loggedIn[arm]` of them sign in as an
    /// account of their own after the exposure.
    func report(loggedIn: [String: Int]) throws -> Report {
        func at(_ hours: Double) -> Timestamp { Timestamp(microseconds: F.start + Int64(hours * 3_600_000_000)) }
        var events: [Event] = []
        for arm in ["control", "ai"] {
            for u in 0..<400 {
                let user = UserID("\(arm)-\(u)")
                events.append(Event(id: "x", type: .exposure, userID: user, timestamp: at(1), experiment: "exp", variant: arm))
                if u < loggedIn[arm, default: 0] {
                    events.append(Event(id: "i", type: .identified, userID: user, timestamp: at(2), identity: UserID("acct-\(arm)-\(u)")))
                }
            }
        }
        return try F.storeReport(events)
    }

    @Test func differentSharesAreAWarningInEveryFormat() throws {
        let r = try report(loggedIn: ["control": 80, "ai": 160])
        #expect(r.users == 800, "people are counted once")
        let note = try #require(r.health.first { $0.code == "identity_imbalance" })
        #expect(note.level == .warning)
        #expect(note.message.contains("“control” 20.0%, “ai” 40.0%"), "\(note.message)")
        #expect(JSONReportRenderer.render(r).contains("\"identity_imbalance\""))
        for (format, text) in F.readableFormats(r) {
            #expect(text.contains("people with more than one id"), "\(format)")
        }
    }

    /// 20% against 25% of 400 is p = 0.09: no warning (the threshold is p < 0.001).
    @Test func equalOrCloseSharesSayNothing() throws {
        #expect(!(try report(loggedIn: ["control": 100, "ai": 100])).health.contains { $0.code == "identity_imbalance" })
        #expect(!(try report(loggedIn: ["control": 80, "ai": 100])).health.contains { $0.code == "identity_imbalance" })
        #expect(!(try report(loggedIn: [:])).health.contains { $0.code == "identity_imbalance" })
    }
}
