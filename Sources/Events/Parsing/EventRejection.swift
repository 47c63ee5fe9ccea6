/// Why one event was refused: the field at fault (`json` for syntax) and a sentence, and the
/// line's other problems, if it has more than one (`more`: every bad field of the line, in the
/// order a reader checks it).
public struct EventRejection: Error, Sendable, Equatable, CustomStringConvertible {
    public var field: String
    public var reason: String
    /// The line's further problems, after this one (each with an empty `more`).
    public var more: [EventRejection]
    /// Not refused: the line names an experiment the folder does not have (`unknown_experiment`).
    /// An exposure is left out; any other event is stored without the experiment (`kept`), so no
    /// payment is lost. Either way the line is listed as ignored.
    public var ignored: Bool
    /// The event to store in spite of the ignored experiment (every type but an exposure).
    public var kept: Event? { keptBox?.event }
    private var keptBox: KeptEvent?

    public init(field: String, reason: String, more: [EventRejection] = [], ignored: Bool = false, kept: Event? = nil) {
        self.field = field
        self.reason = reason
        self.more = more
        self.ignored = ignored
        keptBox = kept.map(KeptEvent.init)
    }

    /// The kept event out of line, so a rejection stays small beside the events it travels with.
    private final class KeptEvent: Sendable, Equatable {
        let event: Event
        init(_ event: Event) { self.event = event }
        static func == (a: KeptEvent, b: KeptEvent) -> Bool { a.event == b.event }
    }

    /// The reason code of an ignored line.
    public static let unknownExperiment = "unknown_experiment"

    /// Every problem of the line, this one first.
    public var problems: [EventRejection] {
        [EventRejection(field: field, reason: reason)] + more
    }

    /// `field: reason`, as `abctl ingest` prints it after the line number (the first problem).
    public var description: String { "\(field): \(reason)" }
}
