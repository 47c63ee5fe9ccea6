import Events
import Foundation
@testable import PostgresStore
import Testing
import TestSupport

@Suite("PostgreSQL connections and migrations") struct PostgresConnectionTests {
    @Test func aWrongPasswordNamesHostAndDatabaseButNotThePassword() throws {
        let cluster = try PostgresCluster.shared()
        let url = cluster.url(database: "postgres", password: "not-the-Secret-42")
        let error = #expect(throws: PostgresError.self) { try PostgresEventStore(url: url) }
        let text = String(describing: error!)
        #expect(error?.kind == .connection)
        #expect(text.contains("host 127.0.0.1 port \(cluster.port) database postgres"), "\(text)")
        #expect(!text.contains("not-the-Secret-42"), "\(text)")
        #expect(text.contains("password authentication failed"), "\(text)")
    }

    @Test func anUnreachableServerOrMissingDatabaseIsAConnectionError() throws {
        let cluster = try PostgresCluster.shared()
        let missing = #expect(throws: PostgresError.self) { try PostgresEventStore(url: cluster.url(database: "no_such_db")) }
        #expect(String(describing: missing!).contains("database no_such_db"))
        // Port 1 on loopback: nobody listens there.
        let refused = #expect(throws: PostgresError.self) { try PostgresEventStore(url: "postgresql://u:pw-xyz@127.0.0.1:1/shop") }
        #expect(String(describing: refused!).contains("host 127.0.0.1 port 1 database shop"))
        #expect(!String(describing: refused!).contains("pw-xyz"))
        let malformed = #expect(throws: PostgresError.self) { try PostgresEventStore(url: "postgresql://u:pw-xyz@127.0.0.1:1/shop?bogus=1") }
        #expect(!String(describing: malformed!).contains("pw-xyz"))
    }

    @Test func nodesStartingAtOnceMigrateOnce() async throws {
        let url = try PostgresCluster.shared().createDatabase()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<6 {
                group.addTask { try PostgresEventStore(url: url).close() }
            }
            try await group.waitForAll()
        }
        let store = try PostgresEventStore(url: url)
        store.close()
        let database = String(url.split(separator: "/").last!)
        let versions = try PostgresCluster.shared().psql("SELECT string_agg(version::text, ',' ORDER BY version) FROM schema_migrations",
                                                         database: database)
        #expect(versions == PostgresSchema.migrations.map { String($0.version) }.joined(separator: ","))
    }

    @Test func aNewerSchemaIsRefusedByName() throws {
        let url = try PostgresCluster.shared().createDatabase()
        try PostgresEventStore(url: url).close()
        let database = String(url.split(separator: "/").last!)
        try PostgresCluster.shared().psql("INSERT INTO schema_migrations VALUES (99, 'from the future', 'now')", database: database)
        let error = #expect(throws: PostgresError.self) { try PostgresEventStore(url: url) }
        #expect(error?.kind == .schemaTooNew(found: 99, supported: PostgresEventStore.schemaVersion))
        #expect(String(describing: error!).contains("database \(database)"))
        #expect(String(describing: error!).contains("schema version 99 is newer"))
    }
}
