import Foundation
import Testing
import Events
@testable import SQLiteStore
import TestSupport

// Synchronous: saving a line blocks until the writer's commit.

@Test func copyLinesAreKeptByExperimentVariantAndBriefAcrossReopens() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let path = dir.path("db.sqlite")
    do {
        let store = try SQLiteEventStore(path: path)
        #expect(try store.cachedCopyLine(experiment: "E", variant: "ai", brief: "They walk with their dog.") == nil)
        try store.saveCopyLine("Chorus walks with you and your dog.", experiment: "E", variant: "ai", brief: "They walk with their dog.",
                               at: Timestamp(microseconds: 1_796_119_200_000_000))
        try store.saveCopyLine("Chorus names the dawn chorus.", experiment: "E", variant: "ai", brief: "They go out at dawn.")
        // Saving the same key again replaces the line.
        try store.saveCopyLine("Chorus names the birds at dawn.", experiment: "E", variant: "ai", brief: "They go out at dawn.")
        store.close()
    }
    let reopened = try SQLiteEventStore(path: path)
    defer { reopened.close() }
    #expect(try reopened.cachedCopyLine(experiment: "E", variant: "ai", brief: "They walk with their dog.")
            == CachedCopyLine(line: "Chorus walks with you and your dog.", createdAt: Timestamp(microseconds: 1_796_119_200_000_000)))
    #expect(try reopened.cachedCopyLine(experiment: "E", variant: "ai", brief: "They go out at dawn.")?.line == "Chorus names the birds at dawn.")
    #expect(try reopened.cachedCopyLine(experiment: "E", variant: "other", brief: "They walk with their dog.") == nil)
    #expect(try reopened.cachedCopyLine(experiment: "F", variant: "ai", brief: "They walk with their dog.") == nil)
}

@Test func aVersionOneDatabaseGainsTheCopyCacheAndKeepsItsEvents() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let path = dir.path("v1.sqlite")
    do {
        // A database as the first abctl left it: migration 1 only, with one event.
        let raw = try Connection(path: path, readOnly: false)
        try raw.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at TEXT NOT NULL)")
        try raw.execute(Schema.migrations[0].sql)
        try raw.execute("INSERT INTO schema_migrations VALUES (1, 'events and per-(experiment, user) facts', '2026-11-01T00:00:00Z')")
        try raw.execute("INSERT INTO events (user_id, event_id, type, ts) VALUES ('u', 'e1', 1, 0)")
    }
    let store = try SQLiteEventStore(path: path)
    defer { store.close() }
    #expect(try store.counts().events == 1)
    try store.saveCopyLine("Chorus hears it first.", experiment: "E", variant: "ai", brief: "b")
    #expect(try store.cachedCopyLine(experiment: "E", variant: "ai", brief: "b")?.line == "Chorus hears it first.")
    let raw = try Connection(path: path, readOnly: true)
    #expect(try raw.scalarInt("SELECT MAX(version) FROM schema_migrations") == Int64(Schema.latestVersion))
}
