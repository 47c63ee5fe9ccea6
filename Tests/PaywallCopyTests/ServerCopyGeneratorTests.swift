import ExperimentDefinitions
import Foundation
import Synchronization
import Testing
@testable import CopyGeneration
import PaywallCopy

/// A model that answers from a script, counting its calls.
final class ScriptedModel: ChatCompleting {
    let answers: Mutex<[Result<String, ChatCompletionError>]>
    let delay: Duration
    let calls = Mutex(0)

    init(_ answers: [Result<String, ChatCompletionError>], delay: Duration = .zero) {
        self.answers = Mutex(answers)
        self.delay = delay
    }

    func complete(_ request: ChatRequest) throws -> String {
        calls.withLock { $0 += 1 }
        if delay > .zero { Thread.sleep(forTimeInterval: Double(delay.components.attoseconds) / 1e18 + Double(delay.components.seconds)) }
        let next = answers.withLock { $0.isEmpty ? .failure(ChatCompletionError(reason: .error, detail: "script ran out")) : $0.removeFirst() }
        return try next.get()
    }
}

final class MemoryCache: CopyLineCache {
    let saved = Mutex<[String: String]>([:])
    func cachedLine(experiment: String, variant: String, brief: String) -> String? { saved.withLock { $0["\(experiment)|\(variant)|\(brief)"] } }
    func saveLine(_ line: String, experiment: String, variant: String, brief: String) { saved.withLock { $0["\(experiment)|\(variant)|\(brief)"] = line } }
}

/// The recipe and answers both generator suites use.
enum CopyFixtures {
    static let recipe = CopyRecipe(
        instructions: "Write one line.", brief: "They walk with their dog.", prompt: "Notes: They walk with their dog.", temperature: 0.8, maxTokens: 60,
        guardRules: CopyGuard(maxWords: 12, forbid: ["?", "!"], mentionOnce: ["Chorus"], forbidUserName: true),
        fallback: "Chorus can help you hear every bird.")
    /// Accepted once its stray quotes are trimmed.
    static let good = "\"Chorus names every song on your walk.\""
    /// Breaks the guard (forbidden "?" and "!", no "Chorus").
    static let bad = "Is this the best app?!"
}

@Suite struct ServerCopyGeneratorTests {
    let recipe = CopyFixtures.recipe, good = CopyFixtures.good, bad = CopyFixtures.bad

    @Test func anAcceptedLineIsServedAndCached() {
        let model = ScriptedModel([.success(good)])
        let cache = MemoryCache()
        let generator = ServerCopyGenerator(client: model, cache: cache, deadline: .seconds(5))
        let first = generator.line(experiment: "e", variant: "ai", recipe: recipe, userName: nil)
        #expect(first == .init(text: "Chorus names every song on your walk.", source: .server, fallbackReason: nil))
        #expect(cache.cachedLine(experiment: "e", variant: "ai", brief: recipe.brief) == first.text)
        // A fresh generator over the same cache (a restart) asks the model nothing.
        let restarted = ServerCopyGenerator(client: model, cache: cache, deadline: .seconds(5))
        #expect(restarted.line(experiment: "e", variant: "ai", recipe: recipe, userName: "Ada").source == .server)
        #expect(model.calls.withLock { $0 } == 1)
    }

    @Test func aGuardRejectionIsRetriedOnce() {
        let retried = ServerCopyGenerator(client: ScriptedModel([.success(bad), .success(good)]), deadline: .seconds(5))
        #expect(retried.line(experiment: "e", variant: "ai", recipe: recipe, userName: nil).source == .server)
        #expect(retried.recentFailures.map(\.reason) == [.guardRejected])

        let model = ScriptedModel([.success(bad), .success(bad), .success(good)])
        let twice = ServerCopyGenerator(client: model, deadline: .seconds(5))
        #expect(twice.line(experiment: "e", variant: "ai", recipe: recipe, userName: nil) == .init(text: recipe.fallback, source: .fallback, fallbackReason: .guardRejected))
        #expect(model.calls.withLock { $0 } == 2, "one retry, no more")
    }

    @Test(arguments: [(FallbackReason.error, "HTTP 500"), (.emptyAnswer, "nothing"), (.timeout, "slow")])
    func failuresShipTheFallbackWithTheirReason(reason: FallbackReason, detail: String) {
        let generator = ServerCopyGenerator(client: ScriptedModel([.failure(ChatCompletionError(reason: reason, detail: detail))]), deadline: .seconds(5))
        #expect(generator.line(experiment: "e", variant: "ai", recipe: recipe, userName: nil) == .init(text: recipe.fallback, source: .fallback, fallbackReason: reason))
        #expect(generator.recentFailures.first?.detail == detail)
    }

    @Test func aFailedBriefGetsTheFallbackAtOnceUntilItsRetryIsDue() {
        let model = ScriptedModel([.failure(ChatCompletionError(reason: .error, detail: "HTTP 503")), .success(good)])
        let generator = ServerCopyGenerator(client: model, deadline: .seconds(5), retryAfter: .milliseconds(300))
        #expect(generator.line(experiment: "e", variant: "ai", recipe: recipe, userName: nil).fallbackReason == .error)
        // Within retryAfter: the same reason, and the model is not asked again.
        #expect(generator.line(experiment: "e", variant: "ai", recipe: recipe, userName: nil).fallbackReason == .error)
        #expect(model.calls.withLock { $0 } == 1)
        #expect(generator.counts.fallbacks[.error] == 2)
        // Another brief is not held back by this one's failure.
        var other = recipe
        other.brief = "They go out at dawn."
        #expect(generator.line(experiment: "e", variant: "ai", recipe: other, userName: nil).source == .server)
        #expect(model.calls.withLock { $0 } == 2)
    }

    @Test func aFailedBriefIsAskedAgainOnceItsRetryIsDue() {
        let model = ScriptedModel([.failure(ChatCompletionError(reason: .emptyAnswer, detail: "nothing")), .success(good)])
        let generator = ServerCopyGenerator(client: model, deadline: .seconds(5), retryAfter: .milliseconds(50))
        #expect(generator.line(experiment: "e", variant: "ai", recipe: recipe, userName: nil).fallbackReason == .emptyAnswer)
        usleep(100_000)  // the retry is due after 50 ms of the clock, not after an event to wait for
        #expect(generator.line(experiment: "e", variant: "ai", recipe: recipe, userName: nil).source == .server)
        #expect(model.calls.withLock { $0 } == 2)
    }

    @Test func aSlowModelNeverHoldsTheCallPastTheDeadline() {
        let generator = ServerCopyGenerator(client: ScriptedModel([.success(good)], delay: .milliseconds(600)), deadline: .milliseconds(100))
        let clock = ContinuousClock()
        let began = clock.now
        let first = generator.line(experiment: "e", variant: "ai", recipe: recipe, userName: nil)
        #expect(clock.now - began < .milliseconds(400))
        #expect(first == .init(text: recipe.fallback, source: .fallback, fallbackReason: .timeout))
        // Generation went on in the background; a later call gets the line.
        let deadline = Date().addingTimeInterval(10)
        while generator.counts.generated == 0, Date() < deadline { usleep(10_000) }
        #expect(generator.line(experiment: "e", variant: "ai", recipe: recipe, userName: nil).source == .server)
    }

    @Test func aCachedLineStillPassesThisUsersGuard() {
        let cache = MemoryCache()
        cache.saveLine("Chorus hears every bird with Ada.", experiment: "e", variant: "ai", brief: recipe.brief)
        let generator = ServerCopyGenerator(client: ScriptedModel([]), cache: cache)
        #expect(generator.line(experiment: "e", variant: "ai", recipe: recipe, userName: "Ada").fallbackReason == .guardRejected)
        #expect(generator.line(experiment: "e", variant: "ai", recipe: recipe, userName: "Bo").source == .server)
    }
}
