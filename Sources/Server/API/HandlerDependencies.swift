import CopyGeneration
import Events
import HTTPTransport

/// Everything a handler may be given. Each route's `make` passes its handler only the parts it
/// declares (see `APIRoutes`), so no handler reaches state it does not name.
struct HandlerDependencies: Sendable {
    let options: APIServer.Options
    /// The API keys in force (replaced on SIGHUP when they come from a file).
    let keys: KeyRing
    let snapshots: SnapshotHolder
    let store: any EventStore
    let exposures: any StickyReader
    let metrics: Metrics
    let connections: ConnectionStats
    let status: ServerStatus
    let safeguards: SafeguardService
    let copyGenerator: ServerCopyGenerator?
    let log: Log
    /// The report threads: reports are computed there, never on a request thread.
    let reports: LowPriorityThreads
    /// The console's sessions, keys and checks.
    let console: ConsoleGate
    /// The reports the console's pages show.
    let consoleReports: ConsoleReports
    /// The console's background slot (its figures on /metrics).
    let consoleRefresher: ConsoleRefresher
    /// The console's pages are answered there, never on a request thread.
    let consolePages: LowPriorityThreads
    /// The experiment files' histories in git, read in the background.
    let consoleHistories: ConsoleFileHistories

    var webhookEvents: WebhookEventWriter { WebhookEventWriter(snapshots: snapshots, store: store, metrics: metrics, clock: options.reportClock, log: log) }
    var storeLookups: StoreLookups { StoreLookups(store: store) }
}
