import Events
import PostgresStore
import SQLiteStore
import TestSupport

/// Every store the conformance suite runs against. A new store is one more line here.
let storeFactories: [StoreFactory] = [
    StoreFactory("SQLite") { dir in try SQLiteEventStore(path: dir.path("conformance.sqlite")) },
    // Every transaction computes facts on the second thread (`SnapshotFacts`), however small.
    StoreFactory("SQLite, facts beside the writer") { dir in
        try SQLiteEventStore(path: dir.path("conformance.sqlite"), options: .init(factsBesideMinimumEvents: 1))
    },
    // Only bulk transactions do; appends of any size refresh facts inline.
    StoreFactory("SQLite, facts inline") { dir in
        try SQLiteEventStore(path: dir.path("conformance.sqlite"), options: .init(factsBesideMinimumEvents: .max))
    },
    // A database of its own on the test process's throwaway cluster.
    StoreFactory("PostgreSQL") { _ in try PostgresEventStore(url: PostgresCluster.shared().createDatabase()) },
]

/// Opens a fresh, empty store of one kind inside a temporary directory of the test's own.
struct StoreFactory: Sendable, CustomStringConvertible {
    let name: String
    let open: @Sendable (TemporaryDirectory) throws -> any EventStore

    init(_ name: String, open: @escaping @Sendable (TemporaryDirectory) throws -> any EventStore) {
        self.name = name
        self.open = open
    }

    var description: String { name }

    /// Runs `body` with a fresh store, then closes it and removes its directory.
    func withStore<T>(_ body: (any EventStore) async throws -> T) async throws -> T {
        try await withTemporaryDirectory { dir in
            let store = try open(dir)
            defer { store.close() }
            return try await body(store)
        }
    }
}
