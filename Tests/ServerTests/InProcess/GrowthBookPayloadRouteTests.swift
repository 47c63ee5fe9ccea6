import Foundation
import Server
import Testing
import TestSupport

/// `GET /api/features/{clientKey}` in process: the payload, its ETag, which keys open it,
/// and a reload rebuilding it (moved from EndToEndTests/GrowthBookPayloadTests, which keeps
/// GrowthBook's own Python SDK against a live server and `abctl export`).
@Suite(.timeLimit(.minutes(2)))
struct GrowthBookPayloadRouteTests {
    static let keys = GrowthBookFixture.keys
    static func writeExperiments(_ folder: String) throws { try GrowthBookFixture.writeExperiments(folder) }

    @Test func etagKeysAndReload() async throws {
        let server = try InProcessServer(options: { $0.keys = try APIKeys.parse(environment: Self.keys) }, experiments: Self.writeExperiments)
        let first = await server.request("GET", "/api/features/client-key-1")
        #expect(first.status == 200)
        let etag = try #require(first.headers["etag"])
        let payload = try #require(first.json)
        #expect(payload["status"] as? Int == 200)
        #expect(payload["dateUpdated"] is String)
        let features = try #require(payload["features"] as? [String: Any])
        #expect(features.keys.sorted() == ["chorus-paywall-copy", "gb-everyone", "gb-hash-v1", "gb-holdout", "gb-shipped", "gb-targeted", "placement:gate", "placement:home"])

        let again = await server.request("GET", "/api/features/client-key-1", headers: ["If-None-Match": etag])
        #expect(again.status == 304)
        #expect(again.body.isEmpty)
        #expect(again.headers["etag"] == etag)
        #expect(await server.request("GET", "/api/features/client-key-1", headers: ["If-None-Match": "\"other\", W/\(etag)"]).status == 304)
        #expect(await server.request("GET", "/api/features/client-key-1", headers: ["If-None-Match": "\"other\""]).status == 200)

        // Only sdk keys are client keys, and they open nothing else.
        #expect(await server.request("GET", "/api/features/assign-key-1").status == 401)
        #expect(await server.request("GET", "/api/features/admin-key-1").status == 401)
        #expect(await server.request("GET", "/api/features/nope").status == 401)
        let assign = await server.request("POST", "/v1/assign", headers: ["Authorization": "Bearer client-key-1"], body: #"{"user_id":"u1"}"#)
        #expect(assign.status == 403)
        #expect(await server.request("GET", "/v1/experiments", headers: ["Authorization": "Bearer client-key-1"]).status == 403)

        // A reload rebuilds it: a new experiment appears and the tag changes.
        try FileManager.default.removeItem(atPath: server.experimentsPath + "/gb-everyone.json")
        let placements = server.experimentsPath + "/placements.json"
        let text = try String(contentsOfFile: placements, encoding: .utf8).replacingOccurrences(of: #",\#n    {"name": "rest", "experiment": "gb-everyone"}"#, with: "")
        try Data(text.utf8).write(to: URL(fileURLWithPath: placements))
        #expect(server.api.reload(), "as a SIGHUP to `abctl serve` does (EndToEndTests/ServeLifecycleTests)")
        #expect(await server.request("GET", "/api/features/client-key-1").headers["etag"] != etag)
        let reloaded = await server.request("GET", "/api/features/client-key-1", headers: ["If-None-Match": etag])
        #expect(reloaded.status == 200)
        #expect((reloaded.json?["features"] as? [String: Any])?.keys.sorted() == ["chorus-paywall-copy", "gb-hash-v1", "gb-holdout", "gb-shipped", "gb-targeted", "placement:gate", "placement:home"])

        let metrics = await server.request("GET", "/metrics").text
        #expect(metrics.contains(#"abctl_http_requests_total{route="/api/features/{clientKey}",method="GET",status="304"}"#))
    }
}
