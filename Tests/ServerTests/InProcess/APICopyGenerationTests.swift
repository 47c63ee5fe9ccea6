import Foundation
import Server
import Testing
import TestSupport

/// ai_generated lines written on the server for devices with no model (`abctl serve --llm-url`),
/// in process, against a fake OpenAI-compatible endpoint in this test process (moved from
/// EndToEndTests/ServeCopyGenerationTests, which keeps a restart and the flags).
@Suite(.timeLimit(.minutes(2)))
struct APICopyGenerationTests {
    static let good = "\"Chorus names every song on the walks you share with your dog.\""
    static let goodTrimmed = "Chorus names every song on the walks you share with your dog."
    static let bad = "Is this free?!"

    /// The AI arm of the shipped copy experiment (qa-device-1 is forced into it), for a dog walker.
    static func assignBody(onDeviceModel: Bool?) -> String {
        let flag = onDeviceModel.map { #","on_device_model":\#($0)"# } ?? ""
        return #"{"user_id":"qa-device-1","experiments":["chorus-paywall-copy"],"signals":{"companion":"dog"}\#(flag)}"#
    }

    /// A server with `--llm-url` set to the fake, `--llm-model fake` and the given deadline (and retry).
    static func server(_ fake: FakeChatServer, deadlineMilliseconds: Int, retryAfterSeconds: Int? = nil,
                       keys: String? = nil) throws -> InProcessServer {
        try InProcessServer {
            var generation = CopyGenerationOptions(url: try #require(URL(string: fake.url)), model: "fake", deadline: .milliseconds(deadlineMilliseconds))
            if let retryAfterSeconds { generation.retryAfter = .seconds(retryAfterSeconds) }
            $0.copyGeneration = generation
            if let keys { $0.keys = try APIKeys.parse(environment: keys) }
        }
    }

    /// The `copy` object of the one assignment.
    func copy(_ server: InProcessServer, onDeviceModel: Bool? = false, headers: [String: String] = [:]) async throws -> [String: Any] {
        let reply = await server.request("POST", "/v1/assign", headers: headers, body: Self.assignBody(onDeviceModel: onDeviceModel))
        try #require(reply.status == 200, "\(reply.text)")
        let assignment = try #require((reply.json?["assignments"] as? [[String: Any]])?.first)
        #expect(assignment["variant"] as? String == "ai")
        return try #require((assignment["paywall"] as? [String: Any])?["copy"] as? [String: Any])
    }

    func diagnostics(_ server: InProcessServer, headers: [String: String] = [:]) async throws -> [String: Any] {
        let reply = await server.request("GET", "/v1/diagnostics/copy", headers: headers)
        try #require(reply.status == 200, "\(reply.text)")
        return try #require(reply.json)
    }

    func counts(_ diagnostics: [String: Any]) -> (generated: Int?, cacheHits: Int?, fallbacks: [String: Int]) {
        let counts = diagnostics["counts"] as? [String: Any]
        return (counts?["generated"] as? Int, counts?["cache_hits"] as? Int, counts?["fallbacks"] as? [String: Int] ?? [:])
    }

    @Test func aDeviceWithoutAModelGetsALineWrittenOnTheServer() async throws {
        let fake = try FakeChatServer([.line(Self.good)])
        let server = try Self.server(fake, deadlineMilliseconds: 5000)

        let served = try await copy(server)
        #expect(served["source"] as? String == "server")
        #expect(served["text"] as? String == Self.goodTrimmed)
        #expect(served["recipe"] == nil)
        let body = try #require(fake.requests.first?.json)
        #expect(body["model"] as? String == "fake")
        let messages = body["messages"] as? [[String: String]]
        #expect(messages?.last?["content"]?.contains("They walk with their dog.") == true)

        // A device with a model (saying so, or saying nothing) still gets the recipe.
        for onDevice in [true, nil] as [Bool?] {
            let handed = try await copy(server, onDeviceModel: onDevice)
            #expect(handed["source"] as? String == "on_device")
            #expect(handed["recipe"] is [String: Any])
        }
        // The next device without a model gets the same line without asking the model again.
        #expect(try await copy(server)["text"] as? String == Self.goodTrimmed)
        #expect(fake.requests.count == 1)

        let report = try await diagnostics(server)
        #expect(report["enabled"] as? Bool == true)
        #expect(report["model"] as? String == "fake")
        #expect(report["deadline_ms"] as? Int == 5000)
        let c = counts(report)
        #expect(c.generated == 1 && c.cacheHits == 1)
        #expect(c.fallbacks == ["guard_rejected": 0, "timeout": 0, "empty_answer": 0, "error": 0])
        #expect((report["recent_failures"] as? [Any])?.isEmpty == true)
    }

    @Test func aSlowModelShipsTheFallbackWithinTheDeadlineAndItsLineLater() async throws {
        let fake = try FakeChatServer([.delayed(milliseconds: 2000, .line(Self.good))])
        let server = try Self.server(fake, deadlineMilliseconds: 300)

        // The call's own time, from the API's view (the wait for a test-pool thread afterwards is not the server's).
        let reply = await server.request("POST", "/v1/assign", body: Self.assignBody(onDeviceModel: false))
        let waited = reply.duration
        #expect(waited < .milliseconds(1000), "the assign call took \(waited) with a 300 ms deadline")
        #expect(reply.status == 200, "\(reply.text)")
        let assignment = try #require((reply.json?["assignments"] as? [[String: Any]])?.first, "\(reply.text)")
        #expect(assignment["variant"] as? String == "ai")
        let first = try #require((assignment["paywall"] as? [String: Any])?["copy"] as? [String: Any])
        #expect(first["source"] as? String == "fallback")
        #expect(first["fallback_reason"] as? String == "timeout")
        #expect(first["text"] as? String == "Picture your next walk with every song named. Chorus can help you get there.")

        // Generation finished in the background: a later call gets the line.
        #expect(try await eventually(within: .seconds(15)) { try await copy(server)["source"] as? String == "server" })
        #expect(fake.requests.count == 1, "calls during the generation wait for it instead of asking again")
        let c = counts(try await diagnostics(server))
        #expect(c.generated == 1)
        #expect((c.fallbacks["timeout"] ?? 0) >= 1)
    }

    @Test func failuresShowInDiagnosticsForAdminsOnly() async throws {
        let fake = try FakeChatServer([.status(500), .garbage, .line(Self.bad), .line(Self.bad)])
        // Retry at once, so each call below meets the next scripted answer.
        let server = try Self.server(fake, deadlineMilliseconds: 5000, retryAfterSeconds: 0, keys: "app-key:assign;admin-key:admin")
        let app = ["Authorization": "Bearer app-key"], admin = ["Authorization": "Bearer admin-key"]

        var reasons: [String?] = []
        for _ in 0..<3 { reasons.append(try await copy(server, headers: app)["fallback_reason"] as? String) }
        #expect(reasons == ["error", "error", "guard_rejected"])
        #expect(fake.requests.count == 4, "a guard rejection is retried once; errors are not")

        #expect(await server.request("GET", "/v1/diagnostics/copy", headers: app).status == 403)
        #expect(await server.request("GET", "/v1/diagnostics/copy").status == 401)
        let report = try await diagnostics(server, headers: admin)
        let failures = try #require(report["recent_failures"] as? [[String: Any]])
        #expect(failures.map { $0["reason"] as? String } == ["guard_rejected", "guard_rejected", "error", "error"])
        #expect(failures.allSatisfy { $0["experiment"] as? String == "chorus-paywall-copy" && $0["variant"] as? String == "ai" })
        #expect((failures.last?["detail"] as? String)?.contains("HTTP 500") == true)
        #expect((failures[2]["detail"] as? String)?.contains("not a chat completion") == true)
        #expect((failures[0]["detail"] as? String)?.contains("Is this free") == true)
        #expect(failures.allSatisfy { ($0["at"] as? String)?.hasSuffix("Z") == true })
        let c = counts(report)
        #expect(c.generated == 0 && c.cacheHits == 0)
        #expect(c.fallbacks == ["guard_rejected": 1, "timeout": 0, "empty_answer": 0, "error": 2])
    }

    @Test func whileAModelFailsItIsNotAskedAgainBeforeTheRetryIsDue() async throws {
        let fake = try FakeChatServer([.status(503)], otherwise: .line(Self.good))
        // The retry is due an hour after the failure (the default is 30 s), so the five calls fall before it
        // however long a busy machine makes them take.
        let server = try Self.server(fake, deadlineMilliseconds: 5000, retryAfterSeconds: 3600)
        var reasons: [String?] = []
        for _ in 0..<5 { reasons.append(try await copy(server)["fallback_reason"] as? String) }
        #expect(reasons == Array(repeating: "error", count: 5))
        #expect(fake.requests.count == 1, "one failed call; the next four shipped the fallback without asking")
        #expect(counts(try await diagnostics(server)).fallbacks["error"] == 5)
    }

    @Test func withoutAnLLMTheRecipeIsHandedOverAsBefore() async throws {
        let server = try InProcessServer()
        let handed = try await copy(server)
        #expect(handed["source"] as? String == "on_device")
        #expect((handed["recipe"] as? [String: Any])?["brief"] as? String == "They walk with their dog.")
        let report = try await diagnostics(server)
        #expect(report["enabled"] as? Bool == false)
        #expect(report["model"] is NSNull && report["deadline_ms"] is NSNull)
        #expect(counts(report).generated == 0)

        let wrongType = await server.request("POST", "/v1/assign", body: #"{"user_id":"u","on_device_model":"no"}"#)
        #expect(wrongType.status == 400)
        #expect(wrongType.error?["field"] as? String == "on_device_model")
    }
}
