import Foundation
import Testing
import Events
@testable import SQLiteStore
import TestSupport

private typealias F = EventFactory

/// The sticky lookup keeps read transactions open between calls; these check that it never
/// answers from an old snapshot and never holds the WAL back.
@Suite struct ExposureLookupTests {
    @Test func aCommitIsSeenByTheNextLookupWithoutWaiting() async throws {
        try await withTemporaryStore { store, _ in
            let lookup = try ExposureLookup(store: store, maxIdle: 1)
            #expect(try lookup.exposedVariant(experiment: "E", userID: "u") == nil)
            #expect(lookup.keepsAnyTransaction)   // the snapshot behind that answer is still open
            _ = try await store.append([F.exposure("x1", user: "u", experiment: "E", variant: "v", hours: 0)])
            #expect(try lookup.exposedVariant(experiment: "E", userID: "u") == "v")
        }
    }

    @Test func aCommitThroughAnotherConnectionIsSeenToo() async throws {
        try await withTemporaryStore { store, dir in
            let lookup = try ExposureLookup(store: store, maxIdle: 2)
            #expect(try lookup.exposedVariant(experiment: "E", userID: "w") == nil)
            // A second store on the same file: its own writer connection, as another process would have.
            let other = try SQLiteEventStore(path: dir.path("events.sqlite"))
            defer { other.close() }
            for n in 0..<20 {
                _ = try other.appendAndWait([F.exposure("o\(n)", user: "w\(n)", experiment: "E", variant: "b", hours: 0)])
                #expect(try lookup.exposedVariant(experiment: "E", userID: "w\(n)") == "b")
            }
        }
    }

    @Test func idleConnectionsLetACheckpointResetTheWAL() async throws {
        try await withTemporaryStore { store, dir in
            _ = try await store.append((0..<500).map { F.exposure("c\($0)", user: "c\($0)", experiment: "E", variant: "v", hours: 0) })
            let lookup = try ExposureLookup(store: store, maxIdle: 1)
            #expect(try lookup.exposedVariant(experiment: "E", userID: "c1") == "v")
            // A TRUNCATE checkpoint waits (busy timeout 10 s) for readers of the WAL to finish; the
            // kept snapshot must be given up by the idle timer well before that.
            let checkpointer = try Connection(path: dir.path("events.sqlite"), readOnly: false)
            let started = Date()
            let s = try checkpointer.prepare("PRAGMA wal_checkpoint(TRUNCATE)")
            #expect(try s.step())
            #expect(s.int64(0) == 0, "the checkpoint was blocked")
            #expect(Date().timeIntervalSince(started) < 5)
            #expect(!lookup.keepsAnyTransaction)
            let wal = try FileManager.default.attributesOfItem(atPath: dir.path("events.sqlite-wal"))[.size] as? Int
            #expect(wal == 0)
        }
    }

    @Test func underSteadyWritesTheWALStillStartsOver() async throws {
        try await withTemporaryStore { store, dir in
            let lookup = try ExposureLookup(store: store, maxIdle: 2)
            // Lookups between every commit keep a snapshot open almost all the time; the WAL must
            // still be reset after checkpoints instead of growing with everything written. (With no
            // frame limit on kept snapshots it reached 11.5 MB here; with it, 4.3 MB.)
            var largest = 0
            for batch in 0..<150 {
                let events = (0..<200).map { F.exposure("s\(batch)-\($0)", user: "s\(batch)-\($0)", experiment: "E", variant: "v", hours: 0) }
                _ = try await store.append(events)
                #expect(try lookup.exposedVariant(experiment: "E", userID: "s\(batch)-7") == "v")
                let size = (try? FileManager.default.attributesOfItem(atPath: dir.path("events.sqlite-wal"))[.size] as? Int) ?? 0
                largest = max(largest, size)
            }
            let database = try FileManager.default.attributesOfItem(atPath: dir.path("events.sqlite"))[.size] as? Int ?? 0
            #expect(database > 2 << 20)
            #expect(largest < 7 << 20, "the WAL grew to \(largest) bytes")
        }
    }
}
