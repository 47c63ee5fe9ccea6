import Events
import Foundation
@testable import PostgresStore
import Testing
import TestSupport

/// The facts columns a report reads (`FactColumns`) are the migrated PostgreSQL `facts` table's, every
/// one with the type its typed NULL names, so a column added to the table without its entry fails here.
@Suite("PostgreSQL facts columns") struct PostgresFactColumnsSchemaTests {
    @Test func theDeclaredFactsColumnsAreTheMigratedTablesColumns() throws {
        let url = try PostgresCluster.shared().createDatabase()
        try PostgresEventStore(url: url).close()
        let stored = try PostgresCluster.shared().psql("""
            SELECT column_name || ' ' || data_type FROM information_schema.columns
            WHERE table_schema = 'public' AND table_name = 'facts' ORDER BY column_name COLLATE "C"
            """, database: String(url.split(separator: "/").last!))
        #expect(stored.split(separator: "\n").map(String.init) == FactColumns.all.map { "\($0.name) \($0.postgresType)" }.sorted())
    }
}
