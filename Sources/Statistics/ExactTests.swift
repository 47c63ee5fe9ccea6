import Foundation

/// One-sided exact tests on counts (for offer mismatches, where the store did not grant the trial
/// an arm tested): is a share of users above a fixed rate, and above another group's share?
/// Checked against scipy `binomtest` and `fisher_exact` (Tests/StatisticsTests/Fixtures/make_exact.py).
public enum ExactTests {
    /// P(X >= k) for X ~ Binomial(n, p): scipy `binomtest(k, n, p, alternative="greater").pvalue`.
    /// The tail is the regularised incomplete beta I_p(k, n − k + 1), exact in the far tail.
    public static func binomialGreater(successes k: Int, trials n: Int, probability p: Double) throws -> Double {
        try Check.binomial(count: k, total: n, "successes", "trials")
        try Check.probability(p, "probability")
        if k == 0 { return 1 }
        if p == 0 { return 0 }
        if p == 1 { return 1 }
        return SpecialFunctions.regularizedIncompleteBeta(p, a: Double(k), b: Double(n - k + 1))
    }

    /// Fisher's exact test, one-sided: is the first group's share of events above the second's?
    /// The 2×2 table [[a, n1 − a], [c, n2 − c]]; the p-value is P(X >= a) for X hypergeometric with the
    /// table's margins (scipy `fisher_exact(table, alternative="greater")`).
    public static func fisherGreater(events a: Int, of n1: Int, againstEvents c: Int, of n2: Int) throws -> Double {
        try Check.binomial(count: a, total: n1, "events", "n1")
        try Check.binomial(count: c, total: n2, "againstEvents", "n2")
        let events = a + c, total = n1 + n2
        let top = min(n1, events)
        guard a <= top else { return 0 }
        // log P(X = x) = log C(events, x) + log C(total − events, n1 − x) − log C(total, n1), summed from a up.
        func logChoose(_ n: Int, _ k: Int) -> Double {
            lgamma(Double(n + 1)) - lgamma(Double(k + 1)) - lgamma(Double(n - k + 1))
        }
        let norm = logChoose(total, n1)
        var sum = 0.0
        for x in a...top where n1 - x <= total - events {
            sum += exp(logChoose(events, x) + logChoose(total - events, n1 - x) - norm)
        }
        return min(1, sum)
    }
}
