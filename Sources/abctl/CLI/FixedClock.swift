import CommandLineKit
import ExperimentDefinitions
import Foundation

/// `ABCTL_NOW` (RFC 3339): the fixed clock of the commands that tell time, for reproducible
/// output. Each of them declares it (`SettingSpec.now`, shown under ENVIRONMENT in its help), so
/// the parser has checked it, once, before the command runs.
enum FixedClock {
    /// The fixed time, or nil when `ABCTL_NOW` is unset (or empty).
    static func now(_ args: ParsedArguments) -> Date? {
        args.setting(.now).flatMap { RFC3339.parse($0) }
    }
}
