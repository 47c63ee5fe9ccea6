/// Why a statistics function refused its input.
///
/// Every public function in this module validates its arguments and throws one of
/// these instead of returning NaN or crashing. `parameter` names the offending
/// argument as it is spelled in the Swift signature.
public enum StatisticsError: Error, Equatable, Sendable, CustomStringConvertible {
    /// An argument is NaN, infinite, negative where a count is needed, or outside its range.
    case invalidArgument(parameter: String, reason: String)
    /// There is not enough data for the method (for example fewer than two observations for a variance).
    case insufficientData(String)

    public var description: String {
        switch self {
        case let .invalidArgument(parameter, reason): return "invalid \(parameter): \(reason)"
        case let .insufficientData(reason): return "insufficient data: \(reason)"
        }
    }
}

/// Argument checks shared by the public entry points.
enum Check {
    static func finite(_ value: Double, _ name: String) throws {
        guard value.isFinite else { throw StatisticsError.invalidArgument(parameter: name, reason: "must be a finite number, got \(value)") }
    }

    static func probability(_ value: Double, _ name: String) throws {
        guard value.isFinite, value >= 0, value <= 1 else {
            throw StatisticsError.invalidArgument(parameter: name, reason: "must be in [0, 1], got \(value)")
        }
    }

    /// Checks a significance level: strictly between 0 and 1.
    static func alpha(_ value: Double, _ name: String = "alpha") throws {
        guard value.isFinite, value > 0, value < 1 else {
            throw StatisticsError.invalidArgument(parameter: name, reason: "must be strictly between 0 and 1, got \(value)")
        }
    }

    static func nonNegative(_ value: Int, _ name: String) throws {
        guard value >= 0 else { throw StatisticsError.invalidArgument(parameter: name, reason: "must not be negative, got \(value)") }
    }

    static func positive(_ value: Double, _ name: String) throws {
        guard value.isFinite, value > 0 else {
            throw StatisticsError.invalidArgument(parameter: name, reason: "must be a positive finite number, got \(value)")
        }
    }

    /// Checks a binomial count: `0 <= count <= total` and `total > 0`.
    static func binomial(count: Int, total: Int, _ countName: String, _ totalName: String) throws {
        try nonNegative(count, countName)
        guard total > 0 else { throw StatisticsError.invalidArgument(parameter: totalName, reason: "must be positive, got \(total)") }
        guard count <= total else {
            throw StatisticsError.invalidArgument(parameter: countName, reason: "\(count) exceeds \(totalName) \(total)")
        }
    }
}
