import Events
import Foundation
@testable import PostgresStore
@testable import SQLiteStore
import Testing
import TestSupport

/// The migrated `events` table is the one `EventColumns` declares, the migrations carry the same
/// numbers in both stores, and a database numbered before they were aligned keeps working.
@Suite("PostgreSQL events table and migration numbers") struct PostgresEventColumnsSchemaTests {
    @Test func theMigratedEventsTableIsTheDeclaredOne() throws {
        let stored = try Self.migratedRows("""
            SELECT column_name || ' ' || data_type || CASE WHEN is_nullable = 'NO' THEN ' NOT NULL' ELSE '' END
                   || CASE WHEN collation_name = 'C' THEN ' COLLATE "C"' ELSE '' END
            FROM information_schema.columns WHERE table_schema = 'public' AND table_name = 'events' ORDER BY ordinal_position
            """)
        let declared = EventColumns.all.map {
            "\($0.name) \($0.postgresType)\($0.notNull ? " NOT NULL" : "")\($0.bytewise ? " COLLATE \"C\"" : "")"
        }
        #expect(stored == declared)
    }

    /// Each line `sql` prints over a freshly migrated database.
    static func migratedRows(_ sql: String) throws -> [String] {
        let url = try PostgresCluster.shared().createDatabase()
        try PostgresEventStore(url: url).close()
        return try PostgresCluster.shared().psql(sql, database: database(url)).split(separator: "\n").map(String.init)
    }

    @Test func anEventWithEveryColumnFilledComesBackWhole() async throws {
        try await withPostgresStore { store, _ throws in
            let events = EventColumnsSamples.everyColumnFilled
            #expect(try store.appendAndWait(events) == AppendResult(stored: events.count, duplicates: 0))
            for event in events { #expect(try store.events(userID: event.userID) == [event]) }
        }
    }

    /// A report's count of store payments can read the payment rows through their partial index:
    /// with sequential scans priced out, the plan names the index only if the query implies its condition.
    @Test func theStorePaymentsQueryCanReadItsIndex() throws {
        let url = try PostgresCluster.shared().createDatabase()
        try PostgresEventStore(url: url).close()
        let sql = PostgresEventStore.storePaymentsSQL(since: Timestamp(microseconds: 0), until: Timestamp(microseconds: 1_000_000))
        let plan = try PostgresCluster.shared().psql("SET enable_seqscan = off; EXPLAIN \(sql)", database: Self.database(url))
        #expect(plan.contains("events_store_payments"), "\(plan)")
    }

    /// The console's count of a placement's exposures reads them through their partial index.
    @Test func thePlacementExposuresQueryCanReadItsIndex() throws {
        let url = try PostgresCluster.shared().createDatabase()
        try PostgresEventStore(url: url).close()
        let plan = try PostgresCluster.shared().psql("""
            SET enable_seqscan = off; PREPARE q(text, bigint, bigint) AS \(PostgresEventStore.placementExposuresSQL);
            EXPLAIN EXECUTE q('onboarding_end', 0, 1000000);
            """, database: Self.database(url))
        #expect(plan.contains("events_placement_exposures"), "\(plan)")
    }

    @Test func fromTheAlignedVersionOnBothStoresNumberEachChangeAlike() {
        let sqlite = Dictionary(uniqueKeysWithValues: Schema.migrations.map { ($0.version, $0.description) })
        let postgres = Dictionary(uniqueKeysWithValues: PostgresSchema.migrations.map { ($0.version, $0.description) })
        let aligned = Set(sqlite.keys).union(postgres.keys).filter { $0 >= PostgresSchema.alignedFrom }.sorted()
        for version in aligned {
            #expect(sqlite[version] != nil && sqlite[version] == postgres[version], "version \(version)")
        }
        #expect(postgres[4] == nil, "version 4 marks a database numbered before the alignment")
    }

    @Test func aDatabaseNumberedBeforeTheAlignmentIsRenumberedAndNotMigratedTwice() throws {
        let url = try PostgresCluster.shared().createDatabase()
        try PostgresEventStore(url: url).close()
        let database = Self.database(url)
        let cluster = try PostgresCluster.shared()
        let versions = "SELECT string_agg(version::text || ':' || description, ',' ORDER BY version) FROM schema_migrations"
        let migrated = try cluster.psql(versions, database: database)
        // As an abctl before the alignment left it: the steps from 5 on recorded one lower.
        try cluster.psql("""
            UPDATE schema_migrations SET version = -(version - 1) WHERE version >= 5;
            UPDATE schema_migrations SET version = -version WHERE version < 0
            """, database: database)
        #expect(try cluster.psql("SELECT count(*) FROM schema_migrations WHERE version = 4", database: database) == "1")
        // Opening it renumbers; a step applied again would fail (its columns and tables exist).
        try PostgresEventStore(url: url).close()
        #expect(try cluster.psql(versions, database: database) == migrated)
    }

    private static func database(_ url: String) -> String { String(url.split(separator: "/").last!) }
}
