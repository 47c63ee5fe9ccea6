import EventStore

/// Opens a store in a fresh temporary directory, runs `body`, then closes and removes it.
public func withTemporaryStore<T>(options: EventStore.Options = .init(),
                                  _ body: (EventStore, TemporaryDirectory) async throws -> T) async throws -> T {
    try await withTemporaryDirectory { dir in
        let store = try EventStore(path: dir.path("events.sqlite"), options: options)
        defer { store.close() }
        return try await body(store, dir)
    }
}
