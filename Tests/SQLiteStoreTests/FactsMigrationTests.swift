import Foundation
import Testing
@testable import SQLiteStore
import Events
import ExperimentDefinitions
import TestSupport

/// Migration 3 adds `facts.revenue_entries` and `facts.crossed_over`, which only the events can fill:
/// a database written before it gets every user's facts recomputed when it is opened.
@Test func aVersionTwoDatabaseGetsRevenueEntriesAndCrossoverFromItsEvents() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let path = dir.path("v2.sqlite")
    let day: Int64 = 86_400_000_000
    do {
        // A database as abctl left it before migration 3: facts rows without the new columns.
        let raw = try Connection(path: path, readOnly: false)
        try raw.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at TEXT NOT NULL)")
        for m in Schema.migrations where m.version <= 2 {
            try raw.execute(m.sql)
            try raw.execute("INSERT INTO schema_migrations VALUES (\(m.version), 'old', '2026-11-01T00:00:00Z')")
        }
        let types = (exposure: EventType.exposure.rawValue, converted: EventType.converted.rawValue, renewed: EventType.renewed.rawValue)
        try raw.execute("""
            INSERT INTO events (user_id, event_id, type, ts, experiment, variant) VALUES ('u', 'e1', \(types.exposure), 0, 'E', 'a');
            INSERT INTO events (user_id, event_id, type, ts, experiment, variant) VALUES ('u', 'e2', \(types.exposure), \(day), 'E', 'b');
            INSERT INTO events (user_id, event_id, type, ts, revenue) VALUES ('u', 'e3', \(types.converted), \(3 * day), 59.99);
            INSERT INTO events (user_id, event_id, type, ts, revenue) VALUES ('u', 'e4', \(types.renewed), \(33 * day), 59.99);
            INSERT INTO facts (experiment, user_id, variant, first_exposure_ts, first_paid_ts, first_converted_ts, net_revenue)
                VALUES ('E', 'u', 'a', 0, \(3 * day), \(3 * day), 119.98);
            """)
    }
    let store = try SQLiteEventStore(path: path)
    defer { store.close() }
    let facts = try #require(try store.facts(userID: "u").first)
    #expect(facts.variant == "a")
    #expect(facts.crossedOver)
    #expect(facts.revenueEntries == [RevenueEntry(offset: 3 * day, amount: 59.99), RevenueEntry(offset: 33 * day, amount: 59.99)])
    #expect(facts.netRevenue == 59.99 + 59.99)
}

@Test func revenueEntriesRoundTripThroughTheirBytes() {
    let entries = [RevenueEntry(offset: 0, amount: 9.99, proceeds: 6.99, proceedsBeforeTax: true, productID: "chorus.plus.monthly"),
                   RevenueEntry(offset: 86_400_000_000 * 365, amount: -59.99, proceeds: -41.99, proceedsBeforeTax: false, productID: "ü"),
                   RevenueEntry(offset: 1, amount: .leastNonzeroMagnitude)]
    let bytes = try! #require(RevenueEntry.encode(entries))
    // The header, 26 bytes an entry and each product id's UTF-8.
    #expect(bytes.count == 8 + 3 * 26 + 19 + 2)
    #expect(bytes.withUnsafeBytes(RevenueEntry.decode) == entries)
    #expect(RevenueEntry.encode([]) == nil)
    // A column written before proceeds (16 bytes an entry, no header) reads with proceeds equal to the
    // amount, before tax: those events named no store.
    var old: [UInt8] = []
    for (offset, amount) in [(Int64(5), 9.99), (Int64(7), -9.99)] {
        withUnsafeBytes(of: offset.littleEndian) { old.append(contentsOf: $0) }
        withUnsafeBytes(of: amount.bitPattern.littleEndian) { old.append(contentsOf: $0) }
    }
    #expect(old.withUnsafeBytes(RevenueEntry.decode) == [RevenueEntry(offset: 5, amount: 9.99), RevenueEntry(offset: 7, amount: -9.99)])
    #expect(old.withUnsafeBytes(RevenueEntry.decode).allSatisfy { $0.proceedsBeforeTax && $0.proceeds == $0.amount })
}
