import Assignment
#if ABCTL_EVENT_STORE
import EventStore
#endif
import ExperimentDefinitions
import Foundation
import PaywallCopy

/// What the API runs on besides the experiment files: the event store, and the engines built per snapshot.
///
/// Built without the EventStore target (no `ABCTL_EVENT_STORE`), there is no store: sticky
/// assignment is off and the event routes answer 501.
public final class Backend: Sendable {
    #if ABCTL_EVENT_STORE
    public let store: EventStore
    #endif

    /// Opens (creating and migrating) the store; `readers` idle read connections are kept for
    /// sticky lookups, one per server thread so none is opened per request.
    init(databasePath: String, readers: Int) throws {
        #if ABCTL_EVENT_STORE
        store = try EventStore(path: databasePath, options: .init(durability: .full, maxIdleReaders: readers))
        #endif
    }

    /// Loads the folder and builds everything a snapshot holds.
    func makeSnapshot(directory: String) throws -> ExperimentSnapshot {
        let catalog = try ExperimentLoader.load(directory: directory)
        #if ABCTL_EVENT_STORE
        return try ExperimentSnapshot(catalog: catalog, sticky: StoreStickyLookup(store: store))
        #else
        return try ExperimentSnapshot(catalog: catalog, sticky: nil)
        #endif
    }

    /// The generator behind `--llm-url`, caching accepted lines in the store when there is one.
    func makeCopyGenerator(_ options: CopyGenerationOptions) -> ServerCopyGenerator {
        let client = OpenAICompatibleClient(baseURL: options.url, model: options.model, apiKey: options.apiKey)
        #if ABCTL_EVENT_STORE
        return ServerCopyGenerator(client: client, cache: StoreCopyLineCache(store: store), deadline: options.deadline,
                                   retryAfter: options.retryAfter)
        #else
        return ServerCopyGenerator(client: client, deadline: options.deadline, retryAfter: options.retryAfter)
        #endif
    }

    /// Waits for queued writes, then closes the store.
    func close() {
        #if ABCTL_EVENT_STORE
        store.close()
        #endif
    }
}

#if ABCTL_EVENT_STORE
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
#endif
