import AbctlClient
import Foundation
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// One person, many ids in AbctlClient (docs/People.md): the client asks under an anonymous id until
/// `logIn`, which queues an `identified` event behind what was queued, carries the cached answers over,
/// and from then on asks under the known id, which the server answers with the anonymous id's arm.
struct LogInTests {
    @Test func theSignUpFlowKeepsTheArmAndLosesNoEvent() async throws {
        let storage = try TemporaryDirectory()
        defer { storage.remove() }
        let server = try await ServeProcess.start()
        var client = try AbctlClient(configuration: ClientFixtures.configuration(server.url, storage: storage))
        var first = await client.userID
        var loggedIn = await client.isLoggedIn
        #expect(UUID(uuidString: first.text) != nil && !loggedIn, "an anonymous id: \(first)")

        // The paywall before sign-in, its exposure queued. The experiment has a namespace: a
        // fresh anonymous id (log-out) until one falls in it.
        var before = await client.paywall(for: ClientFixtures.query(first))
        for _ in 0..<60 where before.variant == nil {
            try await client.logOut()
            first = await client.userID
            before = await client.paywall(for: ClientFixtures.query(first))
        }
        let arm = try #require(before.variant, "\(before.reason)")
        #expect(before.source == .server)
        #expect(try await client.logExposure(before))

        // Sign-up: nothing has been sent yet, so the identify follows the exposure in the queue.
        try await client.logIn("acct-7")
        var now = await client.userID
        loggedIn = await client.isLoggedIn
        #expect(now == "acct-7" && loggedIn)
        #expect(await client.diagnostics().queueDepth == 2)
        #expect(await client.flush())
        #expect(await client.diagnostics().eventsStored == 2)

        // The known id gets the anonymous id's arm (whether or not acct-7 hashes into the namespace),
        // also on a platform the targeting leaves out.
        let after = await client.paywall(for: ClientFixtures.query("acct-7"))
        #expect(after.source == .server && after.variant == arm, "\(after.reason)")
        let web = await client.paywall(for: PaywallQuery(userID: "acct-7", experiment: ClientFixtures.experiment,
                                                         attributes: ["platform": .string("web")]))
        #expect(web.variant == arm && web.reason.detail == "sticky", "\(web.reason)")
        // A second log-in of the same id changes nothing; the id survives a restart.
        try await client.logIn("acct-7")
        #expect(await client.diagnostics().queueDepth == 0)
        await client.close()
        client = try AbctlClient(configuration: ClientFixtures.configuration(try unreachableURL(), storage: storage))
        now = await client.userID
        loggedIn = await client.isLoggedIn
        #expect(now == "acct-7" && loggedIn)
        // Offline, the known id's cached answer is the arm.
        let offline = await client.paywall(for: ClientFixtures.query("acct-7"))
        #expect(offline.source == .cache && offline.variant == arm)

        // Log-out: a new anonymous id; logging in from it as another account queues its identify.
        try await client.logOut()
        let second = await client.userID
        loggedIn = await client.isLoggedIn
        #expect(second != first && second != "acct-7" && !loggedIn)
        try await client.logIn("acct-8")
        #expect(await client.diagnostics().queueDepth == 1)
        await client.close()

        server.signal(SIGTERM)
        #expect(await server.exit(within: .seconds(20)) == 0)
        let rows = try await ChildProcess.run("/usr/bin/sqlite3", [server.databasePath,
            "SELECT type, user_id, coalesce(identity, variant), event_id LIKE 'identify:%' FROM events ORDER BY type, user_id"])
        #expect(rows.stdout.split(separator: "\n").map(String.init) == ["1|\(first)|\(arm)|0", "8|\(first)|acct-7|1"],
                "\(rows.stdout) \(rows.stderr)")
    }

    /// Before the first log-in, a client whose queue is full refuses it and stays anonymous.
    @Test func aFullQueueRefusesTheLogIn() async throws {
        let storage = try TemporaryDirectory()
        defer { storage.remove() }
        let client = try AbctlClient(configuration: ClientFixtures.configuration(try unreachableURL(), storage: storage, queueCapacity: 1))
        let anonymous = await client.userID
        _ = try await client.log([ClientEvent(kind: .exposure, userID: anonymous, experiment: ClientFixtures.experiment, variant: "control")])
        await #expect(throws: LogInError.self) { try await client.logIn("acct-1") }
        let now = await client.userID
        let loggedIn = await client.isLoggedIn
        #expect(now == anonymous && !loggedIn)
        await client.close()
    }
}
