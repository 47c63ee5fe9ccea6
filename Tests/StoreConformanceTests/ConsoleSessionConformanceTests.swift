import Events
import Testing

/// The console's sessions, secret and failed sign-ins, the same on every store, and
/// seen by a second node on the same data.
struct ConsoleSessionConformanceTests {
    @Test(arguments: storeFactories)
    func aSessionIsKeptReadAndRevokedOnce(_ factory: StoreFactory) async throws {
        try await factory.withTwoStores { (first: any EventStore, second: any EventStore) async throws in
            let id = "0123456789abcdef0123456789abcdef"
            #expect(try first.session(id: id) == nil)
            let session = ConsoleSession(id: id, keyHMAC: "ab12", name: "ana-pm \u{E9}", createdAt: 1_000, expiresAt: 44_200)
            try first.createSession(session)
            #expect(try second.session(id: id) == session)
            // The same id twice is refused: an id is never reused.
            #expect(throws: (any Error).self) { try second.createSession(session) }
            try second.revokeSession(id: id, at: 2_000)
            #expect(try first.session(id: id)?.revokedAt == 2_000)
            try first.revokeSession(id: id, at: 3_000)
            #expect(try second.session(id: id)?.revokedAt == 2_000)
            #expect(try first.session(id: id.uppercased()) == nil)
        }
    }

    @Test(arguments: storeFactories)
    func theFirstSecretKeptIsEveryNodesSecret(_ factory: StoreFactory) async throws {
        try await factory.withTwoStores { (first: any EventStore, second: any EventStore) async throws in
            #expect(try first.consoleSecret(name: "session", generated: "aa") == "aa")
            #expect(try second.consoleSecret(name: "session", generated: "bb") == "aa")
            #expect(try second.consoleSecret(name: "other", generated: "cc") == "cc")
        }
    }

    @Test(arguments: storeFactories)
    func failedSignInsAreCountedPerAddressWithinTheWindow(_ factory: StoreFactory) async throws {
        try await factory.withTwoStores { (first: any EventStore, second: any EventStore) async throws in
            for t in [100, 130, 150] as [Int64] { try first.recordFailedSignIn(address: "192.0.2.1", at: t, forgetBefore: t - 60) }
            try second.recordFailedSignIn(address: "2001:db8:0:1", at: 150, forgetBefore: 90)
            #expect(try second.failedSignIns(address: "192.0.2.1", since: 90) == 3)
            #expect(try second.failedSignIns(address: "192.0.2.1", since: 120) == 2)
            #expect(try first.failedSignIns(address: "2001:db8:0:1", since: 90) == 1)
            #expect(try first.failedSignIns(address: "192.0.2.2", since: 0) == 0)
            // Records older than the window are dropped as new ones come.
            try first.recordFailedSignIn(address: "192.0.2.2", at: 500, forgetBefore: 440)
            #expect(try first.failedSignIns(address: "192.0.2.1", since: 0) == 0)
        }
    }

    @Test(arguments: storeFactories)
    func shareLinksAreKeptListedAndRevoked(_ factory: StoreFactory) async throws {
        try await factory.withTwoStores { (first: any EventStore, second: any EventStore) async throws in
            let old = ConsoleShare(id: String(repeating: "a", count: 40), experiment: "chorus-voice", parameters: "alpha=0.1&by=country",
                                   keyHMAC: "k1", createdAt: 100, expiresAt: 100 + 14 * 86_400)
            let new = ConsoleShare(id: String(repeating: "b", count: 40), experiment: "chorus-voice", parameters: "",
                                   keyHMAC: "k2", createdAt: 200, expiresAt: 300)
            let other = ConsoleShare(id: String(repeating: "c", count: 40), experiment: "chorus-trial-length", parameters: "",
                                     keyHMAC: "k1", createdAt: 150, expiresAt: 300)
            for share in [old, new, other] { try first.createShare(share) }
            #expect(try second.share(id: old.id) == old)
            #expect(try second.shares(experiment: "chorus-voice") == [new, old])
            #expect(try second.shares(experiment: "chorus-holdout").isEmpty)
            try second.revokeShare(id: old.id, at: 400)
            try first.revokeShare(id: old.id, at: 500)
            #expect(try first.share(id: old.id)?.revokedAt == 400)
            #expect(try first.share(id: new.id)?.revokedAt == nil)
            #expect(try first.share(id: String(repeating: "d", count: 40)) == nil)
            #expect(throws: (any Error).self) { try second.createShare(old) }
        }
    }
}
