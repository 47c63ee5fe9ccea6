import CommandLineKit
import ExperimentDefinitions
import Foundation

/// `ABCTL_NOW` (RFC 3339): the fixed clock of `report`, `export` and `serve`'s reports, for
/// reproducible output. The one place that reads it.
enum FixedClock {
    /// The fixed time, or nil when `ABCTL_NOW` is unset (or empty); a usage error when it is
    /// not an RFC 3339 time.
    static func now(_ environment: Environment = .process, command: String) throws -> Date? {
        guard let fixed = environment["ABCTL_NOW"] else { return nil }
        guard let date = RFC3339.parse(fixed) else {
            throw CLIError.usage("ABCTL_NOW is not an RFC 3339 time: '\(fixed)'", command: command)
        }
        return date
    }
}
