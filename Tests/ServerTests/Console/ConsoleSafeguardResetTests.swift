import Events
import Foundation
import Server
import Testing

/// The console's one action: lifting a safeguard stop, `admin` only, recorded with the
/// key's name.
@Suite(.timeLimit(.minutes(2)))
struct ConsoleSafeguardResetTests {
    static let figures = SafeguardFigures(controlUsers: 1200, controlCount: 240, armUsers: 1180, armCount: 354,
                                          difference: 0.1, interval: [0.031, 0.169], level: 0.0125, mixingVariance: 0.0004)

    @Test func anAdminLiftsAStopWithTheKeysNameAndAReportKeyCannot() async throws {
        let server = try ConsoleSignInTests.server()
        let stop = SafeguardStop(id: "stop-1", experiment: "chorus-trial-length", arm: "trial-7d", metric: "day0_cancel_rate",
                                 action: .stopArm, stoppedAt: Timestamp(microseconds: 1_795_000_000_000_000), figures: Self.figures)
        #expect(try server.store.recordSafeguardStop(stop))
        let reader = ConsoleBrowser(server, peer: "192.0.2.21")
        _ = await reader.signIn(ConsoleSignInTests.reportKey)
        let readerPage = await reader.request("GET", "/experiments/chorus-trial-length")
        #expect(readerPage.status == 200)
        #expect(!readerPage.text.contains("Lift the stop"))
        let refused = await reader.request("POST", "/experiments/chorus-trial-length/safeguards/reset",
                                           form: [("form_token", ConsoleBrowser.formToken(readerPage.text) ?? ""), ("arm", "trial-7d")])
        #expect(refused.status == 403)
        #expect(try server.store.safeguardStopsInForce(experiment: "chorus-trial-length").count == 1)

        let admin = ConsoleBrowser(server, peer: "192.0.2.22")
        _ = await admin.signIn(ConsoleSignInTests.adminKey)
        let page = await admin.request("GET", "/experiments/chorus-trial-length")
        #expect(page.text.contains("Lift the stop of trial-7d"))
        let token = try #require(ConsoleBrowser.formToken(page.text))
        #expect(await admin.request("POST", "/experiments/chorus-trial-length/safeguards/reset", form: [("arm", "trial-7d")]).status == 403)
        #expect(await admin.request("POST", "/experiments/chorus-trial-length/safeguards/reset", form: [("form_token", token), ("arm", "trial-7d")],
                                    origin: .some("https://evil.example")).status == 403)
        #expect(try server.store.safeguardStopsInForce(experiment: "chorus-trial-length").count == 1)
        let lifted = await admin.request("POST", "/experiments/chorus-trial-length/safeguards/reset", form: [("form_token", token), ("arm", "trial-7d")])
        #expect(lifted.status == 303)
        #expect(lifted.headers["location"] == "/experiments/chorus-trial-length")
        let stops = try server.store.safeguardStops(experiment: "chorus-trial-length")
        let name = try #require(try APIKeys.parse(environment: ConsoleSignInTests.keys).holder(key: ConsoleSignInTests.adminKey)?.name)
        #expect(stops.first?.resetBy == name)
        #expect(stops.first?.resetAt != nil)
        #expect(server.api.snapshots.snapshot.stops.isEmpty)
        #expect(await admin.request("POST", "/experiments/chorus-trial-length/safeguards/reset", form: [("form_token", token), ("arm", "trial-7d")]).status == 404)
    }
}
