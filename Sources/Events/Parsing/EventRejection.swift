/// Why one event was refused: the field at fault (`json` for syntax) and a sentence, and the
/// line's other problems, if it has more than one (`more`: every bad field of the line, in the
/// order a reader checks it).
public struct EventRejection: Error, Sendable, Equatable, CustomStringConvertible {
    public var field: String
    public var reason: String
    /// The line's further problems, after this one (each with an empty `more`).
    public var more: [EventRejection]
    /// Not refused but left out (SPEC §4): the line names an experiment the folder does not have
    /// (`unknown_experiment`); the rest of its batch is stored and the line is counted as ignored.
    public var ignored: Bool

    public init(field: String, reason: String, more: [EventRejection] = [], ignored: Bool = false) {
        self.field = field
        self.reason = reason
        self.more = more
        self.ignored = ignored
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
