import Foundation
import Testing
import Events
@testable import SQLiteStore
import TestSupport

private typealias F = EventFactory

/// SQLite keeps a database's WAL safe from other processes with POSIX locks, which a process loses
/// on every descriptor of the file when it closes any one of them. abctl reads SQLite's WAL index
/// (`WALIndexWatch`), and once opened `-shm` itself to do it: after that close, `sqlite3` or
/// `abctl report` opening the same file found no lock, reset the index under `abctl serve`'s
/// mapping (the server died of SIGBUS) and, closing last, deleted the WAL the server still wrote to.
@Suite struct AnotherProcessTests {
    static func count(_ path: String) async throws -> String {
        let out = try await ChildProcess.run("/usr/bin/sqlite3", [path, "SELECT count(*) FROM events"], limit: .seconds(60))
        #expect(out.status == 0, "\(out.stderr)")
        return out.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Whether another process could lock byte 128 of `-shm` for writing: SQLite's "dead man switch",
    /// which every process with the database open holds shared, and which the first process to open
    /// it takes exclusively to reset the index. Python's `lockf` is fcntl's POSIX lock, as SQLite's.
    static func anotherProcessCouldResetTheIndex(_ path: String) async throws -> Bool {
        let probe = """
            import fcntl, os, sys
            fd = os.open(sys.argv[1], os.O_RDWR)
            try:
                fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, 128, 0)
                print("free")
            except OSError:
                print("held")
            """
        let out = try await ChildProcess.run("/usr/bin/env", ["python3", "-c", probe, path + "-shm"], limit: .seconds(60))
        #expect(out.status == 0, "\(out.stderr)")
        return out.stdout.hasPrefix("free")
    }

    @Test func anotherProcessOpeningTheDatabaseLeavesTheWALToItsWriter() async throws {
        try await withTemporaryStore { store, dir in
            let path = dir.path("events.sqlite")
            // The lookup maps the WAL index; after the commit the writer maps it too (its sticky filter's stamp).
            let lookup = try ExposureLookup(store: store, maxIdle: 1)
            _ = try await store.append([F.exposure("a0", user: "a", experiment: "E", variant: "v", hours: 0)])
            #expect(try lookup.exposedVariant(experiment: "E", userID: "a") == "v")
            #expect(try await !Self.anotherProcessCouldResetTheIndex(path), "this process lost SQLite's locks on the WAL index")
            #expect(try await Self.count(path) == "1")
            // The other process found this one's locks: it was not the last to close, so the WAL stays.
            #expect(FileManager.default.fileExists(atPath: path + "-wal"), "the other process deleted the WAL under the writer")
            // What the writer commits next is in the database the next process reads.
            _ = try await store.append([F.exposure("a1", user: "b", experiment: "E", variant: "v", hours: 0)])
            #expect(try await Self.count(path) == "2")
            #expect(try lookup.exposedVariant(experiment: "E", userID: "b") == "v")
        }
    }
}
