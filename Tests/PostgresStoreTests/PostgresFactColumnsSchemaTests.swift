import Events
@testable import PostgresStore
import Testing

/// The facts columns a report reads (`FactColumns`) are the migrated PostgreSQL `facts` table's, every
/// one with the type its typed NULL names, so a column added to the table without its entry fails here.
@Suite("PostgreSQL facts columns") struct PostgresFactColumnsSchemaTests {
    @Test func theDeclaredFactsColumnsAreTheMigratedTablesColumns() throws {
        let stored = try PostgresEventColumnsSchemaTests.migratedRows("""
            SELECT column_name || ' ' || data_type FROM information_schema.columns
            WHERE table_schema = 'public' AND table_name = 'facts' ORDER BY column_name COLLATE "C"
            """)
        #expect(stored == FactColumns.all.map { "\($0.name) \($0.postgresType)" }.sorted())
    }
}
