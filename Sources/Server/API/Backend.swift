import Assignment
import EventStore
import ExperimentDefinitions

/// What the API runs on besides the experiment files: the event store, and the engines built per snapshot.
public final class Backend: Sendable {
    public let store: EventStore

    /// Opens (creating and migrating) the store; `readers` idle read connections are kept for
    /// sticky lookups, one per server thread so none is opened per request.
    init(databasePath: String, readers: Int) throws {
        store = try EventStore(path: databasePath, options: .init(durability: .full, maxIdleReaders: readers))
    }

    /// Loads the folder and builds everything a snapshot holds.
    func makeSnapshot(directory: String) throws -> ExperimentSnapshot {
        let catalog = try ExperimentLoader.load(directory: directory)
        return try ExperimentSnapshot(catalog: catalog, sticky: StoreStickyLookup(store: store))
    }

    /// Waits for queued writes, then closes the store.
    func close() { store.close() }
}

/// Sticky assignment (SPEC §2): the variant a user was first exposed to, from the store's facts.
struct StoreStickyLookup: StickyLookup {
    let store: EventStore

    func stickyVariant(experimentID: String, userID: String) -> String? {
        do {
            return try store.exposedVariant(experiment: experimentID, userID: userID)
        } catch {
            // Without the record the user is bucketed by hash, which agrees unless weights changed.
            Log.shared.buffered(level: .warning, "sticky lookup failed", [("experiment", .string(experimentID)), ("error", .string(String(describing: error)))])
            return nil
        }
    }
}
