import Events
import Foundation
@testable import SQLiteStore
import Testing
import TestSupport

/// The facts columns a report reads (`FactColumns`) are the migrated `facts` table's, every one of
/// them with the type its storage reads, so a column added to the table without its entry fails here.
@Suite struct FactColumnsSchemaTests {
    @Test func theDeclaredFactsColumnsAreTheMigratedTablesColumns() async throws {
        let stored = try await EventColumnsSchemaTests.migratedRows("SELECT name, type FROM pragma_table_info('facts') ORDER BY name") { s in
            "\(s.text(0)) \(s.text(1))"
        }
        let type: [EventColumn.Storage: String] = [.integer: "INTEGER", .flag: "INTEGER", .real: "REAL", .text: "TEXT", .blob: "BLOB"]
        #expect(stored == FactColumns.all.map { "\($0.name) \(type[$0.storage]!)" }.sorted())
    }

    /// The facts write inserts the declared columns, in their order, one parameter each, into the
    /// migrated table's columns, and on a row already there sets every column but the key.
    @Test func theFactsWriteNamesEveryDeclaredColumn() async throws {
        let sql = FactsRefresh.upsertSQL, declared = FactColumns.all.map(\.name)
        #expect(FactColumnsSamples.list(in: sql, after: "INSERT INTO facts (") == declared)
        #expect(FactColumnsSamples.list(in: sql, after: "VALUES (") == declared.indices.map { "?\($0 + 1)" })
        #expect(FactColumnsSamples.list(in: sql, after: "ON CONFLICT (") == ["experiment", "user_id"])
        #expect(FactColumnsSamples.list(in: sql, after: "DO UPDATE SET ", until: nil)
            == declared.enumerated().filter { !["experiment", "user_id"].contains($0.element) }.map { "\($0.element) = ?\($0.offset + 1)" })
        let stored = try await EventColumnsSchemaTests.migratedRows("SELECT name FROM pragma_table_info('facts') ORDER BY name") { $0.text(0) }
        #expect(stored == declared.sorted())
    }

    /// A row written by the facts write over another of the same key, every column with a value of
    /// its own, reads back whole, and the walk of times reads its times.
    @Test func aFactsRowWithEveryColumnFilledComesBackWhole() async throws {
        try await withTemporaryDirectory { dir in
            let path = dir.path("facts.sqlite")
            try SQLiteEventStore(path: path).close()
            let filled = FactColumnsSamples.everyColumnFilled
            let raw = try Connection(path: path, readOnly: false)
            try withExtendedLifetime(raw) {
                let upsert = try raw.prepare(FactsRefresh.upsertSQL)
                try FactsRefresh.write([FactColumnsSamples.bare], upsert: upsert)
                try FactsRefresh.write([filled], upsert: upsert)
            }
            let store = try SQLiteEventStore(path: path)
            defer { store.close() }
            #expect(try store.facts(userID: filled.userID) == [filled])
            let times = try FactColumnsSamples.timesRead(store)
            #expect(times.all == [FactTimes(filled, arm: 1)])
            #expect(times.userLeftOut.isEmpty)
        }
    }

    /// A walk of one experiment, and a walk asking for no part, select NULL in place of what they do not read.
    @Test func aWalkSelectsNullForWhatItDoesNotRead() {
        let select = SQLiteEventStore.factColumns([], experimentKnown: true)
        let read = select.dropFirst("SELECT ".count).split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(read.count == FactColumns.all.count)
        let unread = zip(FactColumns.all, read).filter { $1.hasPrefix("NULL") }.map { $0.0.name }
        #expect(unread == ["experiment", "revenue_entries", "placement", "attributes"])
    }
}
