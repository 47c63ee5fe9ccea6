import Foundation
import Testing
@testable import EventStore
import TestSupport

// Events are found through 64-bit keys of their ids; two ids may share a key. These tests plant
// a colliding row by hand and check that a shared key never merges two ids.

private func exposure(_ id: String, user: String, at seconds: Int64) -> Event {
    Event(id: id, type: .exposure, userID: user, timestamp: Timestamp(microseconds: seconds * 1_000_000),
          experiment: "E", variant: "a")
}

/// Stores a row whose keys are those of `keyedAs`, but whose ids are `userID` and `eventID`.
private func plantCollision(at path: String, userID: String, eventID: String, keyedAs: (user: String, event: String)) throws {
    let raw = try Connection(path: path, readOnly: false)
    try raw.execute("""
        INSERT INTO events (user_key, event_key, user_id, event_id, type, ts, experiment, variant)
        VALUES (\(RowKey.of(keyedAs.user)), \(RowKey.of(keyedAs.event)), '\(userID)', '\(eventID)', 1, 0, 'E', 'b')
        """)
}

@Test func anEventWhoseKeyCollidesWithAStoredOneIsStillStored() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let path = dir.path("db.sqlite")
    try EventStore(path: path).close()
    try plantCollision(at: path, userID: "other", eventID: "planted", keyedAs: (user: "other", event: "e2"))

    let store = try EventStore(path: path)
    defer { store.close() }
    let result = try store.appendAndWait([exposure("e2", user: "u", at: 10)])
    #expect(result.stored == 1 && result.duplicates == 0)
    let again = try store.appendAndWait([exposure("e2", user: "u", at: 10)])
    #expect(again.stored == 0 && again.duplicates == 1)
    #expect(try store.counts().events == 2)
}

@Test func aUserWhoseKeyCollidesDoesNotSeeTheOtherUsersEvents() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let path = dir.path("db.sqlite")
    try EventStore(path: path).close()
    // An earlier exposure to variant b, by another user whose key equals u's.
    try plantCollision(at: path, userID: "impostor", eventID: "x1", keyedAs: (user: "u", event: "x1"))

    let store = try EventStore(path: path)
    defer { store.close() }
    _ = try store.appendAndWait([exposure("e1", user: "u", at: 10)])
    #expect(try store.events(userID: "u").map(\.id) == ["e1"])
    let facts = try store.facts(userID: "u")
    #expect(facts.map(\.variant) == ["a"])
    #expect(facts.first?.firstExposure == Timestamp(microseconds: 10_000_000))
}
