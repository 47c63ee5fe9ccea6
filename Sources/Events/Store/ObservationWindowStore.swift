import Foundation

/// Where a store's data ends, for data that ends at a known moment.
///
/// A simulation's users are followed until a set time, its "observed until", and nothing after
/// it is written. A report read as of the clock would treat every trial still open then as
/// abandoned for weeks; read as of that moment it is the report the story gives. `abctl simulate`
/// and `abctl demo` record the moment here, and a report (`abctl report`, the API's, the
/// console's) reads the data as of it when neither `until` nor `ABCTL_NOW` names another.
///
/// The record holds only while the store is the simulation's: a transaction that stores any new
/// event (ingest, `/v1/events`, a webhook) deletes it, so reports read as of now again.
public protocol ObservationWindowStore: ObservationWindowReader {
    /// Records (or replaces) the end of observation; returns after the commit.
    func recordObservedUntil(_ time: Timestamp) throws
}
