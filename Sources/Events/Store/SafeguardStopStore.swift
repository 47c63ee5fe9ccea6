/// Where safeguard stops live (docs/Safeguards.md): written once by whichever node evaluates, read
/// by every node at least every 10 s, lifted by `abctl safeguards reset`, and an outbox for
/// `--notify-url`; beside them, each safeguard's mixing scale.
public protocol SafeguardStopStore: SafeguardStopReader, SafeguardScaleStore {
    /// Writes `stop` in one transaction, unless a stop of the same (experiment, arm) is already
    /// in force: true when it was written. A crash leaves the stop whole or absent.
    func recordSafeguardStop(_ stop: SafeguardStop) throws -> Bool

    /// Lifts the stops in force of (experiment, arm), recording who and when; returns how many.
    func resetSafeguardStops(experiment: String, arm: String, by who: String, at time: Timestamp) throws -> Int

    /// Records that the receiver acknowledged stop `id`'s notification (the outbox's mark).
    func markSafeguardStopNotified(id: String, at time: Timestamp) throws

    /// Records that the receiver acknowledged the notification of stop `id`'s reset.
    func markSafeguardResetNotified(id: String, at time: Timestamp) throws

    /// Runs `body` unless another process is running it now, and returns its value; nil when
    /// another holds the lease. On PostgreSQL a session advisory lock (released if the holder
    /// dies); on SQLite the serving process is the only evaluator, so it always runs.
    func withSafeguardLease<T>(_ body: () throws -> T) throws -> T?
}

extension SafeguardStopStore {
    /// The stops in force, oldest first.
    public func safeguardStopsInForce(experiment: String? = nil) throws -> [SafeguardStop] {
        try safeguardStops(experiment: experiment).filter(\.inForce)
    }
}
