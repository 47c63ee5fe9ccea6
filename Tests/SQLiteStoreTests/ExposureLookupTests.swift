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
            _ = try await store.append([F.exposure("x0", user: "t", experiment: "E", variant: "v", hours: 0)])
            let lookup = try ExposureLookup(store: store, maxIdle: 1)
            // A stored pair: the filter of exposed pairs says "maybe", so the store is read.
            #expect(try lookup.exposedVariant(experiment: "E", userID: "t") == "v")
            #expect(lookup.keepsAnyTransaction)   // the snapshot behind that answer is still open
            #expect(try lookup.exposedVariant(experiment: "E", userID: "u") == nil)
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

    /// Once the writer has published its filter of exposed pairs, a user never exposed costs no
    /// read; every exposed pair is still read, and a commit the writer did not make (another
    /// process) sends lookups back to the store until the filter is rebuilt.
    @Test func theFilterSparesReadsForPairsNeverExposed() async throws {
        try await withTemporaryStore { store, dir in
            _ = try await store.append((0..<100).map { F.exposure("e\($0)", user: "e\($0)", experiment: "E", variant: "v", hours: 0) })
            let lookup = try ExposureLookup(store: store, maxIdle: 2)
            try await Self.waitUntilSkipping(lookup)
            let before = lookup.lookupCounts
            for n in 0..<1000 { #expect(try lookup.exposedVariant(experiment: "E", userID: UserID("never-\(n)")) == nil) }
            for n in 0..<100 { #expect(try lookup.exposedVariant(experiment: "F", userID: UserID("e\(n)")) == nil) }
            let unseen = lookup.lookupCounts
            #expect(unseen.skipped - before.skipped >= 1080, "\(unseen)")   // about 1% may be read
            for n in 0..<100 { #expect(try lookup.exposedVariant(experiment: "E", userID: UserID("e\(n)")) == "v") }
            #expect(lookup.lookupCounts.read - unseen.read >= 100)
            // This store's own commits keep the filter published: a new exposure is found at once,
            // and the next unseen user again costs no read.
            _ = try await store.append([F.exposure("n1", user: "new", experiment: "E", variant: "w", hours: 0)])
            #expect(try lookup.exposedVariant(experiment: "E", userID: "new") == "w")
            let afterOwn = lookup.lookupCounts
            #expect(try lookup.exposedVariant(experiment: "E", userID: "never-again") == nil)
            #expect(lookup.lookupCounts.skipped == afterOwn.skipped + 1)
            // Another process's commit: found at once (the filter is not trusted until rebuilt, at most once a second).
            let other = try SQLiteEventStore(path: dir.path("events.sqlite"))
            defer { other.close() }
            _ = try other.appendAndWait([F.exposure("o1", user: "other", experiment: "E", variant: "b", hours: 0)])
            #expect(try lookup.exposedVariant(experiment: "E", userID: "other") == "b")
            #expect(try lookup.exposedVariant(experiment: "E", userID: "never-3") == nil)
            try await Self.waitUntilSkipping(lookup)
            #expect(try lookup.exposedVariant(experiment: "E", userID: "other") == "b")
            #expect(try lookup.exposedVariant(experiment: "E", userID: "e5") == "v")
        }
    }

    /// A store opened on an existing file builds the filter from its facts.
    @Test func aReopenedStoreBuildsTheFilterFromItsFacts() async throws {
        try await withTemporaryDirectory { dir in
            do {
                let first = try SQLiteEventStore(path: dir.path("events.sqlite"))
                _ = try await first.append((0..<50).map { F.exposure("e\($0)", user: "e\($0)", experiment: "E", variant: "v", hours: 0) })
                first.close()
            }
            let store = try SQLiteEventStore(path: dir.path("events.sqlite"))
            defer { store.close() }
            let lookup = try ExposureLookup(store: store, maxIdle: 1)
            try await Self.waitUntilSkipping(lookup)
            for n in 0..<50 { #expect(try lookup.exposedVariant(experiment: "E", userID: UserID("e\(n)")) == "v") }
            for n in 50..<100 { #expect(try lookup.exposedVariant(experiment: "E", userID: UserID("e\(n)")) == nil) }
        }
    }

    /// Waits (up to 5 s) until an unseen pair is answered without a read: the filter is published.
    static func waitUntilSkipping(_ lookup: ExposureLookup) async throws {
        for n in 0..<250 {
            let skipped = lookup.lookupCounts.skipped
            #expect(try lookup.exposedVariant(experiment: "probe", userID: UserID("probe-\(n)")) == nil)
            if lookup.lookupCounts.skipped > skipped { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("the filter of exposed pairs was never published")
    }
}
