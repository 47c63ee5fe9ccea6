import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `abctl serve --llm-url`: accepted lines survive a restart, and the flags are checked. The lines
/// themselves (written, cached, timed out, failed) are checked in process:
/// ServerTests/InProcess/APICopyGenerationTests.
@Suite(.timeLimit(.minutes(2)))
struct ServeCopyGenerationTests {
    static let good = "\"Chorus names every song on the walks you share with your dog.\""
    static let goodTrimmed = "Chorus names every song on the walks you share with your dog."
    static let bad = "Is this free?!"

    /// The AI arm of the shipped copy experiment (qa-device-1 is forced into it), for a dog walker.
    static func assignBody(onDeviceModel: Bool?) -> String {
        let flag = onDeviceModel.map { #","on_device_model":\#($0)"# } ?? ""
        return #"{"user_id":"qa-device-1","experiments":["chorus-paywall-copy"],"signals":{"companion":"dog"}\#(flag)}"#
    }

    static func llmArguments(_ fake: FakeChatServer, deadlineMilliseconds: Int, retryAfterSeconds: Int? = nil) -> [String] {
        ["--llm-url", fake.url, "--llm-model", "fake", "--llm-deadline-ms", String(deadlineMilliseconds)]
            + (retryAfterSeconds.map { ["--llm-retry-after-s", String($0)] } ?? [])
    }

    /// The `copy` object of the one assignment.
    func copy(_ server: ServeProcess, onDeviceModel: Bool? = false, headers: [String: String] = [:]) async throws -> [String: Any] {
        let reply = try await server.request("POST", "/v1/assign", headers: headers, body: Self.assignBody(onDeviceModel: onDeviceModel))
        try #require(reply.status == 200, "\(reply.text)")
        let assignment = try #require((reply.json?["assignments"] as? [[String: Any]])?.first)
        #expect(assignment["variant"] as? String == "ai")
        return try #require((assignment["paywall"] as? [String: Any])?["copy"] as? [String: Any])
    }

    func diagnostics(_ server: ServeProcess, headers: [String: String] = [:]) async throws -> [String: Any] {
        let reply = try await server.request("GET", "/v1/diagnostics/copy", headers: headers)
        try #require(reply.status == 200, "\(reply.text)")
        return try #require(reply.json)
    }

    func counts(_ diagnostics: [String: Any]) -> (generated: Int?, cacheHits: Int?, fallbacks: [String: Int]) {
        let counts = diagnostics["counts"] as? [String: Any]
        return (counts?["generated"] as? Int, counts?["cache_hits"] as? Int, counts?["fallbacks"] as? [String: Int] ?? [:])
    }

    @Test
    func acceptedLinesSurviveARestart() async throws {
        let fake = try FakeChatServer([.line(Self.good)])
        let first = try await ServeProcess.start(arguments: Self.llmArguments(fake, deadlineMilliseconds: 5000))
        #expect(try await copy(first)["source"] as? String == "server")
        first.signal(SIGTERM)
        #expect(await first.exit(within: .seconds(10)) == 0)

        let second = try await ServeProcess.start(arguments: Self.llmArguments(fake, deadlineMilliseconds: 5000), database: first.databasePath)
        let served = try await copy(second)
        #expect(served["source"] as? String == "server")
        #expect(served["text"] as? String == Self.goodTrimmed)
        #expect(fake.requests.count == 1, "the restarted server read the line from the store")
        let c = counts(try await diagnostics(second))
        #expect(c.generated == 0 && c.cacheHits == 1)
    }

    @Test(arguments: [
        (["--llm-url", "ftp://127.0.0.1:1", "--llm-model", "m"], "http or https"),
        (["--llm-url", "http://127.0.0.1:1"], "needs '--llm-model'"),
        (["--llm-model", "m"], "needs '--llm-url'"),
        (["--llm-url", "http://127.0.0.1:1", "--llm-model", "m", "--llm-deadline-ms", "0"], "between 1 and 60000"),
        (["--llm-retry-after-s", "5"], "'--llm-retry-after-s' needs '--llm-url'"),
        (["--llm-url", "http://127.0.0.1:1", "--llm-model", "m", "--llm-retry-after-s", "-1"], "between 0 and 86400"),
    ])
    func badLLMOptionsAreUsageErrors(arguments: [String], message: String) async throws {
        let result = try await Abctl.run(["serve", "--port", "0"] + arguments)
        #expect(result.status == 2)
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }
}
