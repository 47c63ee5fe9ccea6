import Foundation
import Testing
import Events
import ExperimentDefinitions
@testable import SQLiteStore
import TestSupport

/// A database written by the release before the idempotency key became (user_id, event_id)
/// (`Fixtures/release-v2`, made by its `make_fixture.sh`): opening it migrates it to the
/// current schema, keeps every event and fact, and then follows the new key.
@Suite struct MigrationTests {
    static let fixture: String = {
        var url = URL(fileURLWithPath: #filePath)
        url.deleteLastPathComponent()
        return url.path + "/Fixtures/release-v2/abctl-v2.sqlite"
    }()

    @Test func aVersion2DatabaseLosesTheEventIDIndexAndKeepsItsData() async throws {
        try await withTemporaryDirectory { dir in
            let path = dir.path("old.sqlite")
            try FileManager.default.copyItem(atPath: Self.fixture, toPath: path)
            let (factsBefore, indexBefore) = try Self.inspect(path)
            #expect(indexBefore == ["events_by_event_id"])
            #expect(factsBefore.count == 3)

            let store = try SQLiteEventStore(path: path)
            defer { store.close() }
            #expect(try store.counts() == StoreCounts(events: 10, facts: 3, experiments: 2))
            let (factsAfter, indexAfter) = try Self.inspect(path)
            #expect(indexAfter == ["events_by_store_account", "events_store_payments", "events_placement_exposures"],
                    "the event_id index is gone; version 10's store account index, version 19's store payments index and version 25's placement exposures index are new")
            #expect(factsAfter == factsBefore)
            let raw = try Connection(path: path, readOnly: false)
            #expect(try raw.scalarInt("SELECT MAX(version) FROM schema_migrations") == Int64(SQLiteEventStore.schemaVersion))
            #expect(try raw.scalarInt("SELECT COUNT(*) FROM schema_migrations") == Int64(SQLiteEventStore.schemaVersion))

            // ev-3 is u1's conversion: retried, it is a duplicate; under u2 it is u2's own event.
            let converted = try #require(try store.events(userID: "u1").first { $0.id == "ev-3" })
            var other = converted
            other.userID = "u2"
            #expect(try store.appendAndWait([converted, other]) == AppendResult(stored: 1, duplicates: 1))
            #expect(try store.facts(experiment: "chorus-paywall-copy").map(\.netRevenue) == [59.99, 59.99])
            #expect(try store.integrityCheck() == "ok")
        }
    }

    /// The facts rows as text, and the indexes on `events`, read with a plain connection.
    static func inspect(_ path: String) throws -> ([String], [String]) {
        let c = try Connection(path: path, readOnly: false)
        let facts = try c.prepare("SELECT * FROM facts ORDER BY experiment, user_id")
        defer { facts.finish() }
        var rows: [String] = []
        while try facts.step() { rows.append((0..<12).map { facts.optionalText(Int32($0)) ?? "NULL" }.joined(separator: "|")) }
        let indexes = try c.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'events' AND sql IS NOT NULL")
        defer { indexes.finish() }
        var names: [String] = []
        while try indexes.step() { names.append(indexes.text(0)) }
        return (rows, names)
    }
}

/// A database at schema 8 (the observation window, before the currency columns) upgrades to 9: the
/// original amount and currency columns are added, its events and stops kept, and a converted event stored.
@Test func aVersion8DatabaseGainsTheOriginalCurrencyColumns() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let path = dir.path("v8.sqlite")
    do {
        let raw = try Connection(path: path, readOnly: false)
        try raw.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at TEXT NOT NULL)")
        for m in Schema.migrations where m.version <= 8 {
            try raw.execute(m.sql)
            try raw.execute("INSERT INTO schema_migrations VALUES (\(m.version), 'old', '2026-11-01T00:00:00Z')")
        }
        try raw.execute("""
            INSERT INTO events (user_id, event_id, type, ts, revenue, currency) VALUES ('u', 'e1', \(EventType.renewed.rawValue), 0, 9.99, 'USD');
            INSERT INTO safeguard_stops (id, experiment, arm, metric, action, stopped_ts, figures) VALUES ('s1', 'E', 'b', 'day0_cancel_rate', 'stop', 0, '{}');
            """)
    }
    #expect(Schema.migrations.map(\.version) == Array(1...Schema.latestVersion))
    let store = try SQLiteEventStore(path: path)
    defer { store.close() }
    let raw = try Connection(path: path, readOnly: false)
    #expect(try raw.scalarInt("SELECT MAX(version) FROM schema_migrations") == Int64(Schema.latestVersion))
    #expect(try raw.scalarInt("SELECT COUNT(*) FROM safeguard_stops WHERE reset_ts IS NULL") == 1)
    #expect(try raw.scalarInt("SELECT COUNT(*) FROM events WHERE original_revenue IS NULL AND original_currency IS NULL") == 1)
    var converted = Event(id: "e2", type: .renewed, userID: "u", timestamp: Timestamp(microseconds: 1), revenue: 10.8, currency: "USD")
    converted.originalRevenue = 10
    converted.originalCurrency = "EUR"
    #expect(try store.appendAndWait([converted]) == AppendResult(stored: 1, duplicates: 0))
    #expect(try raw.scalarInt("SELECT COUNT(*) FROM events WHERE original_currency = 'EUR' AND original_revenue = 10") == 1)
}
