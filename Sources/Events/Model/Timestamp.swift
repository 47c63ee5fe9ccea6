import ExperimentDefinitions
import Foundation

/// An instant in UTC with microsecond precision, as stored (an integer count since 1970).
public struct Timestamp: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Microseconds since 1970-01-01T00:00:00Z.
    public var microseconds: Int64

    @inlinable public init(microseconds: Int64) { self.microseconds = microseconds }

    public init(seconds: Double) { self.microseconds = Int64((seconds * 1_000_000).rounded()) }

    public init(_ date: Date) { self.init(seconds: date.timeIntervalSince1970) }

    /// Parses RFC 3339 (`2026-12-01T10:00:00Z`, `…T10:00:00.25+01:00`); nil when malformed.
    public init?(rfc3339 text: String) {
        var text = text
        guard let value = text.withUTF8({ RFC3339.parseMicroseconds($0) }) else { return nil }
        self.microseconds = value
    }

    public var secondsSince1970: Double { Double(microseconds) / 1_000_000 }
    public var date: Date { Date(timeIntervalSince1970: secondsSince1970) }

    /// RFC 3339 in UTC, with fractional seconds only when present.
    public var rfc3339: String { RFC3339.format(microseconds: microseconds) }
    public var description: String { rfc3339 }

    public static func < (a: Timestamp, b: Timestamp) -> Bool { a.microseconds < b.microseconds }

    /// This instant moved by `hours` (may be fractional or negative).
    public func adding(hours: Double) -> Timestamp {
        Timestamp(microseconds: microseconds + Int64((hours * 3_600_000_000).rounded()))
    }
}
