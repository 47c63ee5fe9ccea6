import Foundation
import Testing

extension Tag {
    /// A/A, coverage and power checked by simulation: many seeds, most of the tests' CPU. Every such
    /// suite's name ends in `CalibrationTests`, so `swift test --filter CalibrationTests` runs them all.
    @Tag public static var calibration: Self
}

/// How many seeds (or runs) a calibration suite draws, set for every suite by one variable,
/// `ABCTL_CALIBRATION`:
/// - unset: each suite's `make test` size (`quick`), small enough for CI;
/// - `full`: each suite's calibration size (`full`), the one its documented figures come from;
/// - a positive number: the `make test` size times that number (`0.5` to iterate, `3` for more).
///
/// Suites whose tolerance follows from their count (a fixed number of standard errors) stay as
/// strict at every size; the others declare the same `quick` and `full` size.
public struct CalibrationSize: Sendable {
    public var quick: Int
    public var full: Int

    public init(quick: Int, full: Int) {
        self.quick = quick
        self.full = full
    }

    /// The size `ABCTL_CALIBRATION` asks for.
    public var count: Int { Self.count(quick: quick, full: full, setting: ProcessInfo.processInfo.environment[Self.variable]) }

    /// Seeds 1 through `count`, fixed, not chosen.
    public var seeds: [UInt64] { Array(1...UInt64(count)) }

    public static let variable = "ABCTL_CALIBRATION"

    /// The size for a value of `ABCTL_CALIBRATION` (nil: unset). A value that is neither `full` nor a
    /// positive number stops the run: a typo must not pass as a small, quick calibration.
    public static func count(quick: Int, full: Int, setting: String?) -> Int {
        guard let setting, !setting.isEmpty else { return quick }
        if setting == "full" { return full }
        guard let factor = Double(setting), factor > 0, factor.isFinite else {
            preconditionFailure("\(variable)='\(setting)': expected 'full' or a positive number (a multiple of the make test size)")
        }
        return max(1, Int((Double(quick) * factor).rounded()))
    }
}
