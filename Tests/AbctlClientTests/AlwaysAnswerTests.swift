import AbctlClient
import Foundation
import TestSupport
import Testing

/// `paywall(for:)` against a live `abctl serve`, a server that is down and one that is too slow.
@Suite struct AlwaysAnswerTests {
    typealias F = ClientFixtures

    @Test func downAtStartThenServedThenCachedOnTheDevice() async throws {
        let storage = try TemporaryDirectory()
        defer { storage.remove() }
        let dead = try unreachableURL()
        let query = F.query(F.templateUser, userName: "Robin")

        let offline = try AbctlClient(configuration: F.configuration(dead, storage: storage))
        let first = await offline.paywall(for: query)
        #expect(first.source == .default)
        #expect(first.reason.code == .unreachable)
        #expect(first.variant == nil)
        #expect(first.copy.text == "Bundled: hear every bird.")

        let server = try ServeProcess()
        let client = try AbctlClient(configuration: F.configuration(server.url, storage: storage))
        let served = await client.paywall(for: query)
        #expect(served.source == .server)
        #expect(served.reason.code == .assigned)
        #expect(served.variant == "name")
        #expect(served.copy == ShownCopy(text: "Robin, hear every bird on every walk.", source: .template))
        #expect(served.paywall.trialDays == 3)
        #expect(served.paywall.highlightedPlan == "annual")

        // A user the experiment does not target (no platform) gets the default, and says why.
        let untargeted = await client.paywall(for: PaywallQuery(userID: "someone-else", experiment: F.experiment))
        #expect(untargeted.source == .default)
        #expect(untargeted.reason.code == .notInExperiment)
        #expect(untargeted.reason.detail == "targeting")

        server.stop()
        let cached = await client.paywall(for: query)
        #expect(cached.source == .cache)
        #expect(cached.reason.code == .unreachable)
        #expect(cached.variant == "name")
        #expect(cached.copy == served.copy)

        // The cache is on disk: a new process, still offline, keeps the user in the same variant.
        let restarted = try AbctlClient(configuration: F.configuration(dead, storage: storage))
        let afterRestart = await restarted.paywall(for: query)
        #expect(afterRestart.source == .cache)
        #expect(afterRestart.variant == "name")
        #expect(afterRestart.copy.text == "Robin, hear every bird on every walk.")

        let d = await client.diagnostics()
        #expect(d.answersBySource == [.server: 1, .default: 1, .cache: 1])
        #expect(d.paywallFallbacks == [.unreachable: 1])
        #expect(d.lastError?.contains("assign failed") == true)
    }

    @Test func slowServerPastTheDeadlineAnswersFromTheCacheThenBacksOff() async throws {
        let storage = try TemporaryDirectory()
        defer { storage.remove() }
        let query = F.query(F.templateUser)
        do {
            let server = try ServeProcess()
            let seeded = await (try AbctlClient(configuration: F.configuration(server.url, storage: storage))).paywall(for: query)
            #expect(seeded.source == .server)
        }

        // Answers every request, on any path, after 3 s.
        let slow = try FakeChatServer([], otherwise: .delayed(milliseconds: 3000, .status(500)))
        let url = URL(string: slow.url)!
        let clock = ContinuousClock()

        let fresh = try TemporaryDirectory()
        defer { fresh.remove() }
        let noCache = try AbctlClient(configuration: F.configuration(url, storage: fresh, assignDeadline: .milliseconds(300)))
        var answer: PaywallAnswer?
        var elapsed = try await clock.measure { answer = await noCache.paywall(for: query) }
        #expect(answer?.source == .default)
        #expect(answer?.reason.code == .timeout)
        #expect(elapsed < .milliseconds(1500), "the deadline is 300 ms; the answer took \(elapsed)")

        let client = try AbctlClient(configuration: F.configuration(url, storage: storage, assignDeadline: .milliseconds(300),
                                                                   retryAfter: .seconds(60)))
        elapsed = try await clock.measure { answer = await client.paywall(for: query) }
        #expect(answer?.source == .cache)
        #expect(answer?.variant == "name")
        #expect(answer?.reason.code == .timeout)
        #expect(elapsed < .milliseconds(1500))
        #expect(slow.waitForRequests(2))

        // Within retryAfter the server is not asked again: the cache answers at once.
        elapsed = try await clock.measure { answer = await client.paywall(for: query) }
        #expect(answer?.source == .cache)
        #expect(answer?.reason.code == .backingOff)
        #expect(elapsed < .milliseconds(100))
        try await Task.sleep(for: .milliseconds(100))
        #expect(slow.requests.count == 2)

        let d = await client.diagnostics()
        #expect(d.paywallFallbacks == [.timeout: 1, .backingOff: 1])
        #expect(d.answersBySource == [.cache: 2])
    }
}

extension ContinuousClock {
    /// `measure` for an async throwing body (the standard one takes a non-throwing closure).
    func measure(_ body: () async throws -> Void) async throws -> Duration {
        let start = now
        try await body()
        return now - start
    }
}
