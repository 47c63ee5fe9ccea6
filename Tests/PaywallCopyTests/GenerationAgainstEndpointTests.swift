import ExperimentDefinitions
import Foundation
import Testing
import TestSupport
@testable import CopyGeneration
import PaywallCopy

/// `ServerCopyGenerator` with the real `OpenAICompatibleClient` against a fake endpoint on loopback.
///
/// Synchronous tests on purpose: the generator blocks its caller up to the deadline, and blocking
/// inside async tests would hold threads of Swift's small shared pool.
@Suite(.timeLimit(.minutes(2)))
struct GenerationAgainstEndpointTests {
    let recipe = CopyFixtures.recipe, good = CopyFixtures.good, bad = CopyFixtures.bad

    func generator(_ fake: FakeChatServer, apiKey: String? = nil, deadline: Duration = .seconds(5), cache: MemoryCache? = nil) -> ServerCopyGenerator {
        let client = OpenAICompatibleClient(baseURL: URL(string: fake.url)!, model: "fake-model", apiKey: apiKey)
        return ServerCopyGenerator(client: client, cache: cache, deadline: deadline)
    }

    func line(_ generator: ServerCopyGenerator, userName: String? = nil) -> ServerCopyGenerator.Outcome {
        generator.line(experiment: "e", variant: "ai", recipe: recipe, userName: userName)
    }

    @Test func aGoodLineIsServedFromTheRecipesRequest() throws {
        let fake = try FakeChatServer([.line(good)])
        let generator = generator(fake, apiKey: "sk-test")
        #expect(line(generator) == .init(text: "Chorus names every song on your walk.", source: .server, fallbackReason: nil))

        let request = try #require(fake.requests.first)
        #expect(request.method == "POST")
        #expect(request.path == "/v1/chat/completions")
        #expect(request.headers["authorization"] == "Bearer sk-test")
        let body = try #require(request.json)
        #expect(body["model"] as? String == "fake-model")
        #expect(body["temperature"] as? Double == 0.8)
        #expect(body["max_tokens"] as? Int == 60)
        let messages = try #require(body["messages"] as? [[String: String]])
        #expect(messages == [["role": "system", "content": recipe.instructions], ["role": "user", "content": recipe.prompt]])
        #expect(generator.counts.generated == 1)
    }

    @Test func aGuardBreakingLineIsRetriedOnce() throws {
        let retried = try FakeChatServer([.line(bad), .line(good)])
        let first = generator(retried)
        #expect(line(first).source == .server)
        #expect(first.recentFailures.map(\.reason) == [.guardRejected])
        #expect(retried.requests.count == 2)

        let badTwice = try FakeChatServer([.line(bad), .line(bad)], otherwise: .line(good))
        let second = generator(badTwice)
        #expect(line(second) == .init(text: recipe.fallback, source: .fallback, fallbackReason: .guardRejected))
        #expect(badTwice.requests.count == 2, "one retry, no more")
        #expect(second.recentFailures.count == 2)
        #expect(second.recentFailures.first?.detail.contains("Is this the best app") == true)
        #expect(second.counts.fallbacks == [.guardRejected: 1])
    }

    @Test func aSlowModelNeverHoldsTheCallPastTheDeadlineAndItsLineIsCachedLater() throws {
        let fake = try FakeChatServer([.delayed(milliseconds: 1500, .line(good))])
        let cache = MemoryCache()
        let generator = generator(fake, deadline: .milliseconds(300), cache: cache)
        let clock = ContinuousClock()
        let began = clock.now
        let first = line(generator)
        let waited = clock.now - began
        // It waited for the model: Dispatch's timed wait can wake a millisecond or two before its deadline
        // as ContinuousClock counts it (seen: 298.7 ms for 300).
        #expect(waited >= .milliseconds(290))
        #expect(waited < .milliseconds(900), "an assign call waits no longer than the deadline (plus scheduling)")
        #expect(first == .init(text: recipe.fallback, source: .fallback, fallbackReason: .timeout))

        // Generation finishes in the background and fills the cache.
        let deadline = Date().addingTimeInterval(10)
        while cache.cachedLine(experiment: "e", variant: "ai", brief: recipe.brief) == nil, Date() < deadline { usleep(20_000) }
        #expect(cache.cachedLine(experiment: "e", variant: "ai", brief: recipe.brief) == "Chorus names every song on your walk.")
        #expect(line(generator).source == .server)
        #expect(fake.requests.count == 1, "the later call used the line, not the model")
        #expect(generator.counts == { var c = ServerCopyGenerator.Counts(); c.generated = 1; c.cacheHits = 1; c.fallbacks = [.timeout: 1]; return c }())
    }

    @Test(arguments: [
        (FakeChatServer.Answer.status(500), FallbackReason.error, "HTTP 500"),
        (.status(429), .error, "HTTP 429"),
        (.garbage, .error, "not a chat completion"),
        (.line("   "), .emptyAnswer, "answered nothing"),
    ])
    func failuresShipTheFallbackAndAreKept(answer: FakeChatServer.Answer, reason: FallbackReason, detail: String) throws {
        let fake = try FakeChatServer([answer], otherwise: .line(good))
        let generator = generator(fake)
        #expect(line(generator) == .init(text: recipe.fallback, source: .fallback, fallbackReason: reason))
        let failure = try #require(generator.recentFailures.first)
        #expect(failure.reason == reason)
        #expect(failure.detail.contains(detail), "\(failure.detail)")
        #expect(failure.experiment == "e" && failure.variant == "ai")
        #expect(generator.counts.fallbacks == [reason: 1])
        #expect(fake.requests.count == 1, "errors are not retried")
    }
}
