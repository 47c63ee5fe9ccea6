/// The safeguard stops a store keeps, read (`SafeguardStopStore` writes them): what a report and
/// every node's snapshot read.
public protocol SafeguardStopReader: Sendable {
    /// Every stop of `experiment` (of every experiment when nil), in force or lifted, oldest first.
    func safeguardStops(experiment: String?) throws -> [SafeguardStop]
}
