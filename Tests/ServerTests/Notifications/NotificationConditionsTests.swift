import Events
import ExperimentDefinitions
import Foundation
import Server
import Testing
import TestSupport

/// The conditions the lease holder records, read from a store through the server's own
/// notifier: the sample ratio check and the verdict are the report's (the same analysis
/// `GET /v1/experiments/{id}/report` answers with), silence and the end read the clock.
struct NotificationConditionsTests {
    static let now = Date(timeIntervalSince1970: 1_796_256_000)  // 2026-12-03T00:00:00Z

    static func server() throws -> InProcessServer {
        try InProcessServer(options: { options in
            options.reportClock = Self.now
            options.safeguards = SafeguardService.Options(
                notifications: NotificationOptions(targets: [NotificationTarget("http://127.0.0.1:9/hook", format: .json)!]), clock: Self.now)
        })
    }

    static func expose(_ store: any EventStore, _ arm: String, users: Range<Int>) throws {
        let events = users.map { n in
            EventFactory.exposure(EventID("x\(n)"), user: UserID("u\(n)"), experiment: "chorus-trial-length", variant: arm, hours: Double(n % 40))
        }
        _ = try store.appendAndWait(events)
    }

    @Test func aSampleRatioMismatchIsRecordedOnceAndAgainOnlyAfterItCleared() async throws {
        let server = try Self.server()
        let notifier = server.api.safeguards.notifier
        func mismatches() throws -> [OutboxNotification] {
            try server.store.notifications(experiment: "chorus-trial-length").filter { $0.type == "sample_ratio_mismatch" }
        }
        try Self.expose(server.store, "trial-3d", users: 0..<1000)
        try Self.expose(server.store, "trial-7d", users: 1000..<1600)
        let report = await server.request("GET", "/v1/experiments/chorus-trial-length/report")
        #expect((report.json?["srm"] as? [String: Any])?["flagged"] as? Bool == true)
        try notifier.recordConditions()
        try notifier.recordConditions()
        let first = try mismatches()
        #expect(first.count == 1 && first.first?.state == .pending && first.first?.target == "http://127.0.0.1:9/hook")
        #expect(first.first?.text.contains("sample ratio mismatch") == true)

        // Balanced again: no notification, a quiet record of the clear.
        try Self.expose(server.store, "trial-7d", users: 1600..<2000)
        try notifier.recordConditions()
        #expect(try mismatches().count == 1)
        #expect(try server.store.notifications(experiment: "chorus-trial-length").contains { $0.state == .quiet })
        // Flagged once more: a second occurrence, with an id of its own.
        try Self.expose(server.store, "trial-7d", users: 2000..<2700)
        try notifier.recordConditions()
        let both = try mismatches()
        #expect(both.count == 2 && Set(both.map(\.id)).count == 2)
    }

    @Test func theDecisionRecordFollowsTheReportsVerdictAndSilenceIsNoticed() async throws {
        let server = try Self.server()
        try Self.expose(server.store, "trial-3d", users: 0..<500)
        try Self.expose(server.store, "trial-7d", users: 500..<1000)
        try server.api.safeguards.notifier.recordConditions()
        let report = await server.request("GET", "/v1/experiments/chorus-trial-length/report")
        let verdict = try #require((report.json?["decision"] as? [String: Any])?["verdict"] as? String)
        let rows = try server.store.notifications(experiment: nil)
        let decisions = rows.filter { $0.type == "decision_ready" && $0.experiment == "chorus-trial-length" }
        #expect(decisions.count == (["ship", "stop"].contains(verdict) ? 1 : 0), "\(verdict)")
        // The shipped chorus-paywall-copy runs since 2 November with no exposure at all: silent since its start.
        let silent = try #require(rows.first { $0.type == "no_data" && $0.experiment == "chorus-paywall-copy" })
        #expect(silent.at == Timestamp(rfc3339: "2026-11-02T00:00:00Z"))
        // chorus-trial-length's last exposure (39 hours after 1 December began: 2 December, 15:00) is 9 hours old.
        #expect(!rows.contains { $0.type == "no_data" && $0.experiment == "chorus-trial-length" })
        #expect(!rows.contains { $0.type == "past_end" })
    }
}
