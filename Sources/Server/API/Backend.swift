import ExperimentDefinitions

/// What the API runs on besides the experiment files: the event store and the engines built per snapshot.
public final class Backend: Sendable {
    public init() {}

    /// Loads the folder and builds everything a snapshot holds.
    func makeSnapshot(directory: String) throws -> ExperimentSnapshot {
        try ExperimentSnapshot.load(directory: directory)
    }

    /// Waits for queued writes, then closes the store.
    func close() {}
}
