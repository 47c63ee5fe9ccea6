import CommandLineKit
import ExperimentDefinitions

/// Environment settings several commands read, declared once.
extension SettingSpec {
    /// `ABCTL_NOW`: the fixed clock of the commands that tell time (see `FixedClock`).
    static let now = SettingSpec("ABCTL_NOW", .checked { value in
        RFC3339.parse(value) == nil ? "ABCTL_NOW is not an RFC 3339 time: '\(value)' (write e.g. 2026-12-01T00:00:00Z)" : nil
    }, help: "A fixed clock (RFC 3339), for reproducible output.")
}
