import Events
import Foundation
@testable import SQLiteStore
import Testing
import TestSupport

/// The facts columns a report reads (`FactColumns`) are the migrated `facts` table's, every one of
/// them with the type its storage reads, so a column added to the table without its entry fails here.
@Suite struct FactColumnsSchemaTests {
    @Test func theDeclaredFactsColumnsAreTheMigratedTablesColumns() async throws {
        try await withTemporaryDirectory { dir in
            let path = dir.path("schema.sqlite")
            try SQLiteEventStore(path: path).close()
            let raw = try Connection(path: path, readOnly: true)
            let s = try raw.prepare("SELECT name, type FROM pragma_table_info('facts') ORDER BY name")
            defer { s.finish() }
            var stored: [String] = []
            while try s.step() { stored.append("\(s.text(0)) \(s.text(1))") }
            let type: [EventColumn.Storage: String] = [.integer: "INTEGER", .flag: "INTEGER", .real: "REAL", .text: "TEXT", .blob: "BLOB"]
            let declared = FactColumns.all.map { "\($0.name) \(type[$0.storage]!)" }.sorted()
            #expect(stored == declared)
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
