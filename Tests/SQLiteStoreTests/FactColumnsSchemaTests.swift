import Events
import Foundation
@testable import SQLiteStore
import Testing

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

    /// A walk of one experiment, and a walk asking for no part, select NULL in place of what they do not read.
    @Test func aWalkSelectsNullForWhatItDoesNotRead() {
        let select = SQLiteEventStore.factColumns([], experimentKnown: true)
        let read = select.dropFirst("SELECT ".count).split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(read.count == FactColumns.all.count)
        let unread = zip(FactColumns.all, read).filter { $1.hasPrefix("NULL") }.map { $0.0.name }
        #expect(unread == ["experiment", "revenue_entries", "placement", "attributes"])
    }
}
