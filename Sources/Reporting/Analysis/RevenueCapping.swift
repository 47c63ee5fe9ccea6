import ExperimentDefinitions
import Statistics

/// `metrics.revenue_cap` applied to one revenue metric: the cap, and each variant's capped sums.
enum RevenueCapping {
    /// The cap for a revenue metric whose non-zero per-user values, per variant, are `values`: the fixed
    /// amount, or numpy's linear quantile of the strictly positive values pooled over every variant.
    /// Nil when there is no cap, or no positive revenue to take a percentile of.
    static func cap(_ config: RevenueCap?, values: [[Double]]) throws -> Double? {
        switch config {
        case nil: return nil
        case .absolute(let amount): return amount
        case .percentile(let p):
            var positive: [Double] = []
            positive.reserveCapacity(values.reduce(0) { $0 + $1.count })
            for list in values { for x in list where x > 0 { positive.append(x) } }
            guard !positive.isEmpty else { return nil }
            positive.sort()
            return try Quantile.linear(sorted: positive, p)
        }
    }

    /// The summary of `users` values: the non-zero `values`, each above `cap` replaced by it, and zeros.
    static func summary(values: [Double], users: Int, cap: Double?) throws -> SampleSummary {
        var sum = 0.0, squares = 0.0
        if let cap {
            for x in values {
                let y = min(x, cap)
                sum += y
                squares += y * y
            }
        } else {
            for x in values {
                sum += x
                squares += x * x
            }
        }
        return try SampleSummary(count: users, sum: sum, sumOfSquares: squares)
    }
}
