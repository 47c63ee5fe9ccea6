import Foundation

/// Sufficient statistics of a sample: size, sum and sum of squares.
///
/// This is what reports feed in for `revenue_per_user` (one value per exposed user,
/// zero for users who paid nothing). The variance is computed as
/// (Σx² − (Σx)²/n)/(n − 1); with sums of a few million values of similar size
/// that keeps about 1e-9 relative accuracy, and tiny negative round-off is clamped to 0.
public struct SampleSummary: Sendable, Equatable, Hashable {
    public let count: Int
    public let sum: Double
    public let sumOfSquares: Double

    /// Throws for a negative count, non-finite sums, a negative sum of squares,
    /// or sums impossible for the count (Σx² < (Σx)²/n beyond round-off).
    public init(count: Int, sum: Double, sumOfSquares: Double) throws {
        try Check.nonNegative(count, "count")
        try Check.finite(sum, "sum")
        try Check.finite(sumOfSquares, "sumOfSquares")
        guard sumOfSquares >= 0 else {
            throw StatisticsError.invalidArgument(parameter: "sumOfSquares", reason: "must not be negative, got \(sumOfSquares)")
        }
        if count == 0 && (sum != 0 || sumOfSquares != 0) {
            throw StatisticsError.invalidArgument(parameter: "count", reason: "is 0 but the sums are not")
        }
        if count > 0 {
            let implied = sum * sum / Double(count)
            guard sumOfSquares >= implied * (1 - 1e-9) - 1e-300 else {
                throw StatisticsError.invalidArgument(parameter: "sumOfSquares", reason: "is smaller than sum²/count, impossible for real data")
            }
        }
        self.count = count
        self.sum = sum
        self.sumOfSquares = sumOfSquares
    }

    /// Builds the summary of `values`.
    public init(values: [Double]) throws {
        for value in values { try Check.finite(value, "values") }
        try self.init(count: values.count, sum: values.reduce(0, +), sumOfSquares: values.reduce(0) { $0 + $1 * $1 })
    }

    /// The sample mean; throws when the sample is empty.
    public func mean() throws -> Double {
        guard count > 0 else { throw StatisticsError.insufficientData("the mean of an empty sample") }
        return sum / Double(count)
    }

    /// The unbiased sample variance (n − 1 denominator); throws when there are fewer than two values.
    public func variance() throws -> Double {
        guard count > 1 else { throw StatisticsError.insufficientData("a variance needs at least two values, got \(count)") }
        let n = Double(count)
        return max(0, (sumOfSquares - sum * sum / n) / (n - 1))
    }
}
