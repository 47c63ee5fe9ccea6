import Events
@testable import PostgresStore
import Testing
import TestSupport

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

    /// The facts write copies the declared columns, in their order, into the staging table, a COPY row
    /// holding one value each, and inserts them from there, on a row already there setting every
    /// column but the key.
    @Test func theFactsWriteNamesEveryDeclaredColumn() {
        let declared = FactColumns.all.map(\.name), upsert = EventWriteTransaction.upsertFacts
        #expect(FactColumnsSamples.list(in: EventWriteTransaction.copyFacts, after: "COPY abctl_facts_staging (") == declared)
        #expect(FactColumnsSamples.list(in: upsert, after: "INSERT INTO facts (") == declared)
        #expect(FactColumnsSamples.list(in: upsert, after: "SELECT ", until: " FROM abctl_facts_staging") == declared)
        #expect(FactColumnsSamples.list(in: upsert, after: "ON CONFLICT (") == ["experiment", "user_id"])
        #expect(FactColumnsSamples.list(in: upsert, after: "DO UPDATE SET ", until: nil)
            == declared.filter { !["experiment", "user_id"].contains($0) }.map { "\($0) = excluded.\($0)" })
        var row = CopyBuffer()
        row.add(FactColumnsSamples.everyColumnFilled)
        #expect(row.bytes.split(separator: UInt8(ascii: "\t"), omittingEmptySubsequences: false).count == declared.count)
    }

    /// A row written by the facts write over another of the same key, every column with a value of
    /// its own, reads back whole, and the walk of times reads its times.
    @Test func aFactsRowWithEveryColumnFilledComesBackWhole() throws {
        let url = try PostgresCluster.shared().createDatabase()
        try PostgresEventStore(url: url).close()
        let filled = FactColumnsSamples.everyColumnFilled
        do {
            let c = try Connection(target: ConnectionTarget(url: url))
            try c.execute("CREATE TEMPORARY TABLE abctl_facts_staging (LIKE facts)", context: "test")
            for facts in [FactColumnsSamples.bare, filled] {
                var rows = CopyBuffer()
                rows.add(facts)
                try c.copyIn(EventWriteTransaction.copyFacts, data: rows.bytes, context: "test")
                try c.execute(EventWriteTransaction.upsertFacts + "; TRUNCATE abctl_facts_staging", context: "test")
            }
        }
        let store = try PostgresEventStore(url: url)
        defer { store.close() }
        #expect(try store.facts(userID: filled.userID) == [filled])
        let times = try FactColumnsSamples.timesRead(store)
        #expect(times.all == [FactTimes(filled, arm: 1)])
        #expect(times.userLeftOut.isEmpty)
    }
}
