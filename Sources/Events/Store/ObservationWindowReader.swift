/// Where a store's data ends, read (`ObservationWindowStore` records it).
public protocol ObservationWindowReader: Sendable {
    /// The recorded end of observation, if any.
    func observedUntil() throws -> Timestamp?

    /// How many events the store holds at or after `time`: what a report read as of `time` leaves
    /// out (said when an `until` after now was asked).
    func eventCount(from time: Timestamp) throws -> Int
}
