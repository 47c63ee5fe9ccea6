@testable import AbctlClient
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

    /// Timed in ClientProbe's own process: this test process's thread pool is shared with every
    /// other test, some of which block their threads for seconds.
    @Test func slowServerPastTheDeadlineAnswersFromTheCacheThenBacksOff() throws {
        try #require(ClientProbe.isBuilt, "build ClientProbe first (swift build)")
        let storage = try TemporaryDirectory()
        defer { storage.remove() }
        func answers(_ url: URL, _ dir: TemporaryDirectory, calls: Int, retryAfterMs: Int = 0) throws -> [JSONValue] {
            let run = try ClientProbe.run(["paywall", "--dir", dir.url.path, "--url", url.absoluteString, "--user", F.templateUser.text,
                                           "--calls", String(calls), "--deadline-ms", "300", "--retry-after-ms", String(retryAfterMs)])
            #expect(run.status == 0)
            return try run.stdout.split(separator: "\n").map { try JSONValue.parse(Array($0.utf8)) }
        }
        do {
            let server = try ServeProcess()
            #expect(try answers(server.url, storage, calls: 1).first?["source"] == .string("server"))
        }

        // Answers every request, on any path, after 20 s.
        let slow = try FakeChatServer([], otherwise: .delayed(milliseconds: 20_000, .status(500)))
        let url = URL(string: slow.url)!

        let fresh = try TemporaryDirectory()
        defer { fresh.remove() }
        let first = try #require(try answers(url, fresh, calls: 1).first)
        #expect(first["source"] == .string("default"))
        #expect(first["reason"] == .string("timeout"))
        #expect((first["elapsed_ms"]?.number ?? .infinity) < 1500, "the deadline is 300 ms")

        let cached = try answers(url, storage, calls: 2, retryAfterMs: 60_000)
        try #require(cached.count == 2)
        #expect(cached[0]["source"] == .string("cache"))
        #expect(cached[0]["variant"] == .string("name"))
        #expect(cached[0]["reason"] == .string("timeout"))
        #expect((cached[0]["elapsed_ms"]?.number ?? .infinity) < 1500)
        // Within retryAfter the server is not asked again: the cache answers at once.
        #expect(cached[1]["source"] == .string("cache"))
        #expect(cached[1]["reason"] == .string("backing_off"))
        #expect((cached[1]["elapsed_ms"]?.number ?? .infinity) < 250)
        #expect(slow.waitForRequests(2))
        usleep(200_000)
        #expect(slow.requests.count == 2)
    }
}
