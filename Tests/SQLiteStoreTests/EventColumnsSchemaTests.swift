import Events
import Foundation
@testable import SQLiteStore
import Testing
import TestSupport

/// The migrated `events` table is the one `EventColumns` declares: same columns, in the same
/// order, with the same types and NOT NULLs, and an event comes back from it as it was stored.
@Suite struct EventColumnsSchemaTests {
    @Test func theMigratedEventsTableIsTheDeclaredOne() async throws {
        let stored = try await Self.migratedRows("SELECT name, type, \"notnull\" FROM pragma_table_info('events') ORDER BY cid") { s in
            "\(s.text(0)) \(s.text(1))\(s.int64(2) == 1 ? " NOT NULL" : "")"
        }
        #expect(stored == EventColumns.all.map { "\($0.name) \($0.sqliteType)\($0.notNull ? " NOT NULL" : "")" })
    }

    /// Each row of `sql` over a freshly migrated store's file, as `line` writes it.
    static func migratedRows(_ sql: String, _ line: (Statement) -> String) async throws -> [String] {
        try await withTemporaryDirectory { dir in
            let path = dir.path("schema.sqlite")
            try SQLiteEventStore(path: path).close()
            let raw = try Connection(path: path, readOnly: true)
            let s = try raw.prepare(sql)
            defer { s.finish() }
            var rows: [String] = []
            while try s.step() { rows.append(line(s)) }
            return rows
        }
    }

    @Test func anEventWithEveryColumnFilledComesBackWhole() async throws {
        try await withTemporaryDirectory { dir in
            let store = try SQLiteEventStore(path: dir.path("round.sqlite"))
            defer { store.close() }
            let events = EventColumnsSamples.everyColumnFilled
            #expect(try store.appendAndWait(events) == AppendResult(stored: events.count, duplicates: 0))
            for event in events { #expect(try store.events(userID: event.userID) == [event]) }
        }
    }
}

/// A report's count of store payments reads the few payment rows through their index, never
/// every event: the plan SQLite chooses for the query names the index.
@Suite struct StorePaymentsIndexTests {
    /// The lines of the plan SQLite chooses for `sql` on a fresh store.
    static func plan(_ sql: String) async throws -> [String] {
        try await withTemporaryDirectory { dir in
            let path = dir.path("plan.sqlite")
            try SQLiteEventStore(path: path).close()
            let raw = try Connection(path: path, readOnly: true)
            let s = try raw.prepare("EXPLAIN QUERY PLAN " + sql)
            defer { s.finish() }
            var plan: [String] = []
            while try s.step() { plan.append(s.text(3)) }
            return plan
        }
    }

    @Test func theStorePaymentsQueryReadsItsIndex() async throws {
        let plan = try await Self.plan(SQLiteEventStore.storePaymentsSQL)
        #expect(plan.contains { $0.contains("USING INDEX events_store_payments") }, "\(plan)")
        #expect(!plan.contains { $0.hasPrefix("SCAN e") }, "\(plan)")
    }
}

/// The console's placements page counts a placement's exposures of the last 7 days from their
/// index alone: the plan SQLite chooses names it as covering, and never scans the events.
@Suite struct PlacementExposuresIndexTests {
    @Test func thePlacementExposuresQueryReadsOnlyItsIndex() async throws {
        let plan = try await StorePaymentsIndexTests.plan(SQLiteEventStore.placementExposuresSQL)
        #expect(plan.contains { $0.contains("USING COVERING INDEX events_placement_exposures") }, "\(plan)")
        #expect(!plan.contains { $0.hasPrefix("SCAN events") }, "\(plan)")
    }
}
