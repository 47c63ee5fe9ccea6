import SQLiteStore

/// Opens a SQLite store in a fresh temporary directory, runs `body`, then closes and removes it.
public func withTemporaryStore<T>(options: SQLiteEventStore.Options = .init(),
                                  _ body: (SQLiteEventStore, TemporaryDirectory) async throws -> T) async throws -> T {
    try await withTemporaryDirectory { dir in
        let store = try SQLiteEventStore(path: dir.path("events.sqlite"), options: options)
        defer { store.close() }
        return try await body(store, dir)
    }
}
