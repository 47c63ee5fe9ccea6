/// Why one event was refused: the field at fault (`json` for syntax) and a sentence.
public struct EventRejection: Error, Sendable, Equatable, CustomStringConvertible {
    public var field: String
    public var reason: String

    public init(field: String, reason: String) {
        self.field = field
        self.reason = reason
    }

    /// `field: reason`, as `abctl ingest` prints it after the line number.
    public var description: String { "\(field): \(reason)" }
}
