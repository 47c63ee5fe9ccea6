/// What the console's pages read, kept in the store so every node shows the same figures: each
/// experiment's change counter, moved by every write of events that touches the experiment, and
/// the report the lease holder last computed for it with the default parameters.
public protocol ConsoleReportStore: Sendable {
    /// Every experiment's change counter. A write of events moves, in the transaction that stores
    /// them, the counter of each experiment whose facts it recomputes: the experiment of an
    /// exposure, and every experiment its other events' users were exposed to. An experiment no
    /// write has touched is absent (its counter is 0).
    func experimentChangeCounters() throws -> [String: Int64]

    /// Keeps `report` as its experiment's stored report, in place of the one before.
    func keepConsoleReport(_ report: StoredConsoleReport) throws

    /// The stored reports, by experiment; with `bodies` false, each without its `body` (the
    /// overview needs only the summaries).
    func consoleReports(bodies: Bool) throws -> [String: StoredConsoleReport]

    /// One experiment's stored report, with its body; nil when there is none yet.
    func consoleReport(experiment: String) throws -> StoredConsoleReport?
}

/// One experiment's report as the console keeps it: what the overview's row reads, the page's
/// HTML, and what it was computed from.
public struct StoredConsoleReport: Sendable, Equatable {
    public var experiment: String
    /// The experiment's change counter read before the report was computed: the report holds at
    /// least the events that moved it this far.
    public var counter: Int64
    /// What else the report was computed from (the folder's load and the stops in force), so a
    /// change to either computes it again.
    public var inputs: String
    /// The report's as-of moment (its `generated_at`).
    public var generatedAt: Timestamp
    /// When the lease holder computed it.
    public var computedAt: Timestamp
    /// The overview's figures, as JSON.
    public var summary: String
    /// The experiment page's HTML; empty when read without bodies.
    public var body: String

    public init(experiment: String, counter: Int64, inputs: String, generatedAt: Timestamp, computedAt: Timestamp,
                summary: String, body: String) {
        self.experiment = experiment
        self.counter = counter
        self.inputs = inputs
        self.generatedAt = generatedAt
        self.computedAt = computedAt
        self.summary = summary
        self.body = body
    }
}
