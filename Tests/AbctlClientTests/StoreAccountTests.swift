import AbctlClient
import Foundation
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The client makes one store account id per user, keeps it across restarts, and sends
/// it with every exposure, so the App Store and Google Play webhooks find the user.
struct StoreAccountTests {
    @Test func oneIDPerUserStableAcrossRestartsAndSentWithExposures() async throws {
        let storage = try TemporaryDirectory()
        defer { storage.remove() }
        let server = try await ServeProcess.start()
        let client = try AbctlClient(configuration: ClientFixtures.configuration(server.url, storage: storage))
        let id = try await client.storeAccountID(for: ClientFixtures.aiUser)
        #expect(UUID(uuidString: id) != nil && id == id.lowercased(), "\(id): a UUID, as appAccountToken needs")
        #expect(id.count <= 64, "Play's obfuscated account id is at most 64 characters")
        #expect(try await client.storeAccountID(for: ClientFixtures.aiUser) == id)
        let other = try await client.storeAccountID(for: ClientFixtures.templateUser)
        #expect(other != id)
        let answer = await client.paywall(for: ClientFixtures.query(ClientFixtures.aiUser))
        #expect(answer.source == .server && answer.variant != nil)
        #expect(try await client.logExposure(answer))
        #expect(await client.flush())
        await client.close()

        // After a restart: the same id for the same user.
        let restarted = try AbctlClient(configuration: ClientFixtures.configuration(server.url, storage: storage))
        #expect(try await restarted.storeAccountID(for: ClientFixtures.aiUser) == id)
        #expect(try await restarted.storeAccountID(for: ClientFixtures.templateUser) == other)
        // A user who never asked gets one with the first exposure.
        let fresh: UserID = "walker-42"
        let freshAnswer = await restarted.paywall(for: ClientFixtures.query(fresh))
        if freshAnswer.variant != nil {
            #expect(try await restarted.logExposure(freshAnswer))
            #expect(await restarted.flush())
        }
        await restarted.close()

        server.signal(SIGTERM)
        #expect(await server.exit(within: .seconds(20)) == 0)
        let rows = try await ChildProcess.run("/usr/bin/sqlite3", [server.databasePath,
            "SELECT user_id, store_account_id FROM events WHERE type = 1 ORDER BY user_id"])
        var expected = ["\(ClientFixtures.aiUser)|\(id)"]
        if freshAnswer.variant != nil {
            let freshID = try AbctlClient(configuration: ClientFixtures.configuration(server.url, storage: storage))
            expected.append("\(fresh)|\(try await freshID.storeAccountID(for: fresh))")
            await freshID.close()
        }
        #expect(rows.stdout.split(separator: "\n").map(String.init) == expected.sorted(), "\(rows.stdout) \(rows.stderr)")
    }
}
