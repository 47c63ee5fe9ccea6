import Assignment
import Events
import ExperimentDefinitions
import Foundation
import CopyGeneration
import PaywallCopy

/// What the API runs on besides the experiment files: the store, and the engines built per snapshot.
public final class Backend: Sendable {
    public let store: any EventStore
    /// Sticky assignment's reads, kept apart from the store's other readers.
    let exposures: any StickyReader
    let log: Log

    /// Takes the store `abctl` opened; `readers` idle connections are kept for sticky lookups,
    /// one per server thread so none is opened per request.
    init(store: any EventStore, readers: Int, log: Log) throws {
        self.store = store
        self.log = log
        exposures = try store.makeStickyReader(maxIdle: readers)
    }

    /// Loads the folder and builds everything a snapshot holds.
    func makeSnapshot(directory: String) throws -> ExperimentSnapshot {
        let catalog = try ExperimentFiles.load(directory: directory)
        return try ExperimentSnapshot(catalog: catalog, sticky: StoreStickyLookup(exposures: exposures, log: log))
    }

    /// The generator behind `--llm-url`, caching accepted lines in the store.
    func makeCopyGenerator(_ options: CopyGenerationOptions) -> ServerCopyGenerator {
        let client = OpenAICompatibleClient(baseURL: options.url, model: options.model, apiKey: options.apiKey)
        return ServerCopyGenerator(client: client, cache: StoreCopyLineCache(store: store, log: log), deadline: options.deadline,
                                   retryAfter: options.retryAfter)
    }

    /// Waits for queued writes, then closes the store.
    func close() {
        store.close()
    }
}

/// Sticky assignment: the variant a user was first exposed to, from the store's facts.
/// A class: the assigner holds it as an existential, which then copies as one reference.
final class StoreStickyLookup: StickyLookup {
    let exposures: any StickyReader
    let log: Log

    init(exposures: any StickyReader, log: Log) {
        self.exposures = exposures
        self.log = log
    }

    func stickyVariant(experimentID: String, userID: UserID) -> String? {
        do {
            return try exposures.exposedVariant(experiment: experimentID, userID: userID)
        } catch {
            // Without the record the user is bucketed by hash, which agrees unless weights changed.
            log.buffered(level: .warning, "sticky lookup failed", [("experiment", .string(experimentID)), ("error", .string(String(describing: error)))])
            return nil
        }
    }

    func stickyRecords(experimentIDs: [String], userID: UserID) -> (variants: [String?], linked: Bool) {
        do {
            let answers = try exposures.exposedVariantsAndLink(experiments: experimentIDs, userID: userID)
            return (answers.variants, answers.linked)
        } catch {
            log.buffered(level: .warning, "sticky lookup failed", [("experiment", .string(experimentIDs.joined(separator: ","))), ("error", .string(String(describing: error)))])
            return (experimentIDs.map { _ in nil }, false)
        }
    }

    func stickyVariants(experimentIDs: [String], userID: UserID) -> [String?] {
        do {
            return try exposures.exposedVariants(experiments: experimentIDs, userID: userID)
        } catch {
            log.buffered(level: .warning, "sticky lookup failed", [("experiment", .string(experimentIDs.joined(separator: ","))), ("error", .string(String(describing: error)))])
            return experimentIDs.map { _ in nil }
        }
    }
}
