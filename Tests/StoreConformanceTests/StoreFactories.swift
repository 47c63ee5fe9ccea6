import Events
import PostgresStore
import SQLiteStore
import TestSupport

/// Every store the conformance suite runs against. A new store is one more line here.
let storeFactories: [StoreFactory] = [
    StoreFactory("SQLite") { dir in dir.path("conformance.sqlite") } open: { try SQLiteEventStore(path: $0) },
    // Every transaction computes facts on the second thread (`SnapshotFacts`), however small.
    StoreFactory("SQLite, facts beside the writer") { dir in dir.path("conformance.sqlite") } open: {
        try SQLiteEventStore(path: $0, options: .init(factsBesideMinimumEvents: 1))
    },
    // Only bulk transactions do; appends of any size refresh facts inline.
    StoreFactory("SQLite, facts inline") { dir in dir.path("conformance.sqlite") } open: {
        try SQLiteEventStore(path: $0, options: .init(factsBesideMinimumEvents: .max))
    },
    // A database of its own on the test process's throwaway cluster.
    StoreFactory("PostgreSQL") { _ in try PostgresCluster.shared().createDatabase() } open: { try PostgresEventStore(url: $0) },
]

/// Opens a fresh, empty store of one kind inside a temporary directory of the test's own.
struct StoreFactory: Sendable, CustomStringConvertible {
    let name: String
    /// A new, empty place for a store (a file, a database).
    let location: @Sendable (TemporaryDirectory) throws -> String
    /// A store on the data at a location: opened twice, two writers on the same data (two
    /// processes on one SQLite file, two nodes on one PostgreSQL database).
    let open: @Sendable (String) throws -> any EventStore

    init(_ name: String, location: @escaping @Sendable (TemporaryDirectory) throws -> String,
         open: @escaping @Sendable (String) throws -> any EventStore) {
        self.name = name
        self.location = location
        self.open = open
    }

    var description: String { name }

    /// Runs `body` with a fresh store, then closes it and removes its directory.
    func withStore<T>(_ body: (any EventStore) async throws -> T) async throws -> T {
        try await withTemporaryDirectory { dir in
            let store = try open(location(dir))
            defer { store.close() }
            return try await body(store)
        }
    }

    /// Runs `body` with two stores on the same fresh data (as two processes or nodes see it).
    func withTwoStores<T>(_ body: (any EventStore, any EventStore) async throws -> T) async throws -> T {
        try await withTemporaryDirectory { dir in
            let place = try location(dir)
            let first = try open(place)
            defer { first.close() }
            let second = try open(place)
            defer { second.close() }
            return try await body(first, second)
        }
    }
}
