/// Sample ratio mismatch: a chi-square goodness-of-fit test of arm sizes against the planned weights.
///
/// Matches scipy `chisquare(observed, expected)` with expected = total × weight / Σweight.
public struct SampleRatioMismatch: Sendable, Equatable, Codable {
    /// The threshold below which the report flags a mismatch.
    public static let defaultThreshold = 0.001

    public let statistic: Double
    public let degreesOfFreedom: Int
    public let pValue: Double
    /// pValue < threshold.
    public let flagged: Bool

    /// Tests `counts` (users per arm) against `weights` (any positive scale).
    ///
    /// Throws for fewer than two arms, mismatched lengths, negative counts or
    /// non-positive weights. With zero users in total the result is defined as
    /// statistic 0, p-value 1, not flagged.
    public init(counts: [Int], weights: [Double], threshold: Double = SampleRatioMismatch.defaultThreshold) throws {
        guard counts.count >= 2 else { throw StatisticsError.insufficientData("sample ratio mismatch needs at least two arms") }
        guard counts.count == weights.count else {
            throw StatisticsError.invalidArgument(parameter: "weights", reason: "has \(weights.count) entries for \(counts.count) arms")
        }
        for count in counts { try Check.nonNegative(count, "counts") }
        for weight in weights { try Check.positive(weight, "weights") }
        try Check.alpha(threshold, "threshold")
        let total = Double(counts.reduce(0, +))
        let weightSum = weights.reduce(0, +)
        degreesOfFreedom = counts.count - 1
        guard total > 0 else {
            statistic = 0; pValue = 1; flagged = false
            return
        }
        var chi2 = 0.0
        for (count, weight) in zip(counts, weights) {
            let expected = total * weight / weightSum
            let deviation = Double(count) - expected
            chi2 += deviation * deviation / expected
        }
        statistic = chi2
        pValue = ChiSquare.survival(chi2, degreesOfFreedom: Double(counts.count - 1))
        flagged = pValue < threshold
    }
}
