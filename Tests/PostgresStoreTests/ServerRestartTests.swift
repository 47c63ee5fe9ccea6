import Events
import Foundation
import Testing
import TestSupport
@testable import PostgresStore

/// Connections a restarted server closed while they sat idle: the first found dead retires them
/// all, and the call that found it runs again on a fresh connection (a 503 only while
/// the store is really unavailable).
@Suite struct ServerRestartTests {
    @Test func callsAfterTheServerClosedEveryIdleConnectionSucceedAtTheFirstTry() async throws {
        try await withPostgresStore(options: .init(writers: 2, maxIdleReaders: 4)) { store, url in
            let sticky = try store.makeStickyReader(maxIdle: 2)
            _ = try await store.append([EventFactory.exposure("e0", user: "u0", experiment: "A", variant: "control", hours: 0)])
            // Two reader connections at once (the lease holds one), a sticky one, a writer's.
            _ = try store.withSafeguardLease { try store.counts() }
            #expect(try sticky.exposedVariants(experiments: ["A"], userID: "u0") == ["control"])
            let database = String(url.split(separator: "/").last!)
            let cluster = try PostgresCluster.shared()
            let connected = "SELECT count(*) FROM pg_stat_activity WHERE datname = '\(database)' AND pid <> pg_backend_pid()"
            let before = try Int(cluster.psql(connected)) ?? 0
            #expect(before >= 4)
            // As a restart does: the server ends every session while the store is idle.
            try cluster.psql("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = '\(database)' AND pid <> pg_backend_pid()")
            #expect(try await eventually(within: .seconds(10)) { try Int(cluster.psql(connected)) == 0 })

            // Each kind of call, first after the loss, succeeds: a write, reads, a sticky lookup.
            let stored = try await store.append([EventFactory.exposure("e1", user: "u1", experiment: "A", variant: "treatment", hours: 1),
                                                 EventFactory.exposure("e0", user: "u0", experiment: "A", variant: "control", hours: 0)])
            #expect(stored.stored == 1 && stored.duplicates == 1)
            #expect(try store.counts().events == 2)
            #expect(try store.facts(userID: "u1").map(\.variant) == ["treatment"])
            #expect(try sticky.exposedVariants(experiments: ["A"], userID: "u1") == ["treatment"])
            #expect(try store.exposedVariant(experiment: "A", userID: "u0") == "control")
            // One generation retired: the first dead connection found took the others with it.
            #expect(store.generation.current == 1)
        }
    }
}
