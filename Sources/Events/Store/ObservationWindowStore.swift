import Foundation

/// Where a store's data ends, for data that ends at a known moment.
///
/// A simulation's users are followed until a set time, its "observed until" (`abctl demo`: 10
/// days after the last arrival), and nothing after it is written. A report read as of the clock
/// would treat every trial still open then as abandoned for weeks; read as of that moment it is
/// the report the demo wrote. The demo records the moment here, and a report (`abctl report`, the
/// API's) reads the data as of it when neither `until` nor `ABCTL_NOW` names another.
public protocol ObservationWindowStore: ObservationWindowReader {
    /// Records (or replaces) the end of observation; returns after the commit.
    func recordObservedUntil(_ time: Timestamp) throws
}
