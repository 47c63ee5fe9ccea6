/// Why one event was refused: the field at fault (`json` for syntax) and a sentence, and the
/// line's other problems, if it has more than one (`more`: every bad field of the line, in the
/// order a reader checks it).
public struct EventRejection: Error, Sendable, Equatable, CustomStringConvertible {
    public var field: String
    public var reason: String
    /// The line's further problems, after this one (each with an empty `more`).
    public var more: [EventRejection]

    public init(field: String, reason: String, more: [EventRejection] = []) {
        self.field = field
        self.reason = reason
        self.more = more
    }

    /// Every problem of the line, this one first.
    public var problems: [EventRejection] {
        [EventRejection(field: field, reason: reason)] + more
    }

    /// `field: reason`, as `abctl ingest` prints it after the line number (the first problem).
    public var description: String { "\(field): \(reason)" }
}
