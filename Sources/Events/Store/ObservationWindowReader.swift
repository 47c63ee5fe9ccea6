/// Where a store's data ends, read (`ObservationWindowStore` records it).
public protocol ObservationWindowReader: Sendable {
    /// The recorded end of observation, if any.
    func observedUntil() throws -> Timestamp?
}
