/// A whole store, as `abctl` opens it from `--db`: events in, facts out, the sticky record,
/// the copy cache, where simulated data ends. Every consumer (Reporting, Server, Simulation) is written against these
/// protocols, never against a store's own type.
public protocol EventStore: EventWriter, ReportSource, CopyLineStore, PaymentLedger, SafeguardStopStore, AllocationPeriodStore,
                            ObservationWindowStore, StoreAccountDirectory, TrialHistory, PeopleDirectory, WebhookDeliveryLog,
                            NotificationOutbox, ConsoleSessionStore, ConsoleReportStore, PlacementExposureCounts {
    /// A reader for the assign path that keeps up to `maxIdle` connections between calls
    /// (one per server thread avoids opening any per request).
    func makeStickyReader(maxIdle: Int) throws -> any StickyReader

    /// Waits for queued writes, then refuses new ones. Calling it again does nothing.
    func close()
}
