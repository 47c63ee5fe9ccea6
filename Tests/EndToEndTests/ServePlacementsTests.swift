import Foundation
import TestSupport
import Testing

/// `abctl assign --placement` answers as `/v1/assign` with `placement` does.
@Suite(.timeLimit(.minutes(4)))
struct ServePlacementsTests {
    static let keys = "app-key:app;ingest-key:ingest;assign-key:assign"

    /// The answer itself, and the `app` scope, are checked in process (ServerTests/InProcess/APIPlacementsTests).
    @Test func theCLIGivesTheServersAnswer() async throws {
        let server = try await ServeProcess.start(environment: ["ABCTL_API_KEYS": Self.keys])
        let auth = ["Authorization": "Bearer app-key"]
        let web = try #require(try await server.request("POST", "/v1/assign", headers: auth, body: #"{"user_id":"w","attributes":{"platform":"web"},"placement":"feature_gate"}"#).json)
        #expect(web["reason"] as? String == "audience" && web["show_paywall"] as? Bool == false && web["paywall"] is NSNull && web["audience"] as? String == "web")
        let cli = try await Abctl.run(["assign", "--experiments", server.experimentsPath, "--user", "w", "--attr", "platform=web", "--placement", "feature_gate"])
        #expect(cli.status == 0, "\(cli.stderr)")
        let line = try #require(try JSONSerialization.jsonObject(with: Data(cli.stdout.utf8)) as? [String: Any])
        #expect(line["reason"] as? String == "audience" && line["show_paywall"] as? Bool == false)
    }
}
