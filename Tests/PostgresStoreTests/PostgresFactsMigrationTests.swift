import Events
import ExperimentDefinitions
import Foundation
@testable import PostgresStore
import Testing
import TestSupport

/// The migration that adds the undone cancels and later ends to facts recomputes the rows written
/// before it: a database left at the version before, with an undone cancel stored, reads it after.
@Suite struct PostgresFactsMigrationTests {
    @Test func rowsWrittenBeforeTheUndoneCancelsColumnAreRecomputed() throws {
        let url = try PostgresCluster.shared().createDatabase()
        let origin = Timestamp(rfc3339: "2026-12-01T00:00:00Z")!
        let events = [
            Event(id: "x", type: .exposure, userID: "u", timestamp: origin, experiment: "e", variant: "control"),
            Event(id: "t", type: .trialStarted, userID: "u", timestamp: origin.adding(hours: 1)),
            Event(id: "c", type: .cancelled, userID: "u", timestamp: origin.adding(hours: 3)),
            Event(id: "n", type: .uncancelled, userID: "u", timestamp: origin.adding(hours: 40)),
        ]
        let store = try PostgresEventStore(url: url)
        _ = try store.appendAndWait(events)
        store.close()
        // As version 22 left it: no such columns, so no undone cancel kept, and none of the later
        // versions' tables or indexes.
        let database = String(url.split(separator: "/").last!)
        _ = try PostgresCluster.shared().psql("""
            ALTER TABLE facts DROP COLUMN undone_cancels, DROP COLUMN later_ends;
            DROP TABLE experiment_changes, console_reports;
            DROP INDEX events_placement_exposures;
            DELETE FROM schema_migrations WHERE version >= 23;
            """, database: database)

        let migrated = try PostgresEventStore(url: url)
        defer { migrated.close() }
        let facts = try migrated.facts(experiment: "e")
        #expect(facts.map(\.undoneCancels) == [[EndSpan(at: origin.adding(hours: 3).microseconds, undoneAt: origin.adding(hours: 40).microseconds)]])
        #expect(facts == FactsBuilder.facts(userID: "u", events: events))
    }
}
