import Assignment
import EventStore
import ExperimentDefinitions
import Foundation
import PaywallCopy

/// What the API runs on besides the experiment files: the event store, and the engines built per snapshot.
public final class Backend: Sendable {
    public let store: EventStore
    /// Sticky assignment's reads, one `SELECT` each (see `ExposureLookup`).
    let exposures: ExposureLookup

    /// Opens (creating and migrating) the store; `readers` idle read connections are kept for
    /// sticky lookups, one per server thread so none is opened per request.
    init(databasePath: String, readers: Int) throws {
        store = try EventStore(path: databasePath, options: .init(durability: .full, maxIdleReaders: readers))
        exposures = try ExposureLookup(store: store, maxIdle: readers)
    }

    /// Loads the folder and builds everything a snapshot holds.
    func makeSnapshot(directory: String) throws -> ExperimentSnapshot {
        let catalog = try ExperimentLoader.load(directory: directory)
        return try ExperimentSnapshot(catalog: catalog, sticky: StoreStickyLookup(exposures: exposures))
    }

    /// The generator behind `--llm-url`, caching accepted lines in the store.
    func makeCopyGenerator(_ options: CopyGenerationOptions) -> ServerCopyGenerator {
        let client = OpenAICompatibleClient(baseURL: options.url, model: options.model, apiKey: options.apiKey)
        return ServerCopyGenerator(client: client, cache: StoreCopyLineCache(store: store), deadline: options.deadline,
                                   retryAfter: options.retryAfter)
    }

    /// Whether the user's latest `trial_started` has no `converted` after it: an App Store
    /// renewal then is the trial's conversion (the notification itself does not say).
    func trialAwaitingConversion(userID: String) throws -> Bool {
        var open = false
        for event in try store.events(userID: userID) {
            switch event.type {
            case .trialStarted: open = true
            case .converted: open = false
            default: break
            }
        }
        return open
    }

    /// Waits for queued writes, then closes the store.
    func close() {
        store.close()
    }
}

/// Sticky assignment (SPEC §2): the variant a user was first exposed to, from the store's facts.
struct StoreStickyLookup: StickyLookup {
    let exposures: ExposureLookup

    func stickyVariant(experimentID: String, userID: String) -> String? {
        do {
            return try exposures.exposedVariant(experiment: experimentID, userID: userID)
        } catch {
            // Without the record the user is bucketed by hash, which agrees unless weights changed.
            Log.shared.buffered(level: .warning, "sticky lookup failed", [("experiment", .string(experimentID)), ("error", .string(String(describing: error)))])
            return nil
        }
    }
}
