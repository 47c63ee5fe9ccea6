import Foundation

/// The log-rank test that two or more survival curves are equal (lifelines `multivariate_logrank_test`).
///
/// The statistic is (O − E)ᵀ V⁻¹ (O − E) over the first k − 1 groups, compared with a
/// chi-square with k − 1 degrees of freedom. Groups with nobody at risk at any event time
/// carry no information and are left out of the inverse (as lifelines' pseudo-inverse does);
/// the degrees of freedom stay k − 1. With no events at all the statistic is 0 and p = 1.
public struct LogRankTest: Sendable, Equatable, Codable {
    public let statistic: Double
    public let degreesOfFreedom: Int
    public let pValue: Double
    /// Observed events per group.
    public let observed: [Double]
    /// Expected events per group under equal hazards.
    public let expected: [Double]

    /// Throws for fewer than two groups or an empty group.
    public init(groups: [[SurvivalObservation]]) throws {
        let k = groups.count
        guard k >= 2 else { throw StatisticsError.insufficientData("the log-rank test needs at least two groups, got \(k)") }
        for (i, group) in groups.enumerated() where group.isEmpty {
            throw StatisticsError.insufficientData("group \(i) of the log-rank test is empty")
        }
        // All subjects, with group labels, sorted by time.
        var all = [(time: Double, event: Bool, group: Int)]()
        all.reserveCapacity(groups.reduce(0) { $0 + $1.count })
        for (g, group) in groups.enumerated() { for o in group { all.append((o.time, o.event, g)) } }
        all.sort { $0.time < $1.time }

        var atRisk = groups.map { Double($0.count) }
        var observed = [Double](repeating: 0, count: k)
        var expected = [Double](repeating: 0, count: k)
        var covariance = [[Double]](repeating: [Double](repeating: 0, count: k), count: k)
        // One pair of per-group counts, cleared at each distinct time: nearly every time is distinct,
        // and two fresh arrays per time cost more than the test's arithmetic.
        var deaths = [Double](repeating: 0, count: k)
        var leaving = [Double](repeating: 0, count: k)
        var index = 0
        while index < all.count {
            let time = all[index].time
            for g in 0..<k { deaths[g] = 0; leaving[g] = 0 }
            while index < all.count && all[index].time == time {
                let g = all[index].group
                if all[index].event { deaths[g] += 1 }
                leaving[g] += 1
                index += 1
            }
            let d = deaths.reduce(0, +)
            let n = atRisk.reduce(0, +)
            if d > 0 {
                let factor = n > 1 ? d * (n - d) / (n - 1) : 0
                for g in 0..<k {
                    observed[g] += deaths[g]
                    expected[g] += d * atRisk[g] / n
                    for h in 0..<k {
                        let share = (g == h ? 1 : 0) - atRisk[h] / n
                        covariance[g][h] += factor * atRisk[g] / n * share
                    }
                }
            }
            for g in 0..<k { atRisk[g] -= leaving[g] }
        }
        let difference = zip(observed, expected).map { $0 - $1 }
        let m = k - 1
        let reducedMatrix = (0..<m).map { Array(covariance[$0][0..<m]) }
        let statistic = max(0, Self.quadraticForm(Array(difference[0..<m]), reducedMatrix))
        self.statistic = statistic
        self.degreesOfFreedom = m
        self.pValue = statistic > 0 ? ChiSquare.survival(statistic, degreesOfFreedom: Double(m)) : 1
        self.observed = observed
        self.expected = expected
    }

    /// xᵀ A⁻¹ x for a symmetric positive semi-definite A, skipping directions with no variance.
    ///
    /// Gauss–Jordan elimination pivoting on the largest remaining diagonal entry; pivots
    /// below 1e-12 of the largest diagonal entry are treated as zero (their directions dropped).
    static func quadraticForm(_ x: [Double], _ a: [[Double]]) -> Double {
        var active = Array(x.indices)
        let scale = a.indices.map { a[$0][$0] }.max() ?? 0
        guard scale > 0 else { return 0 }
        active.removeAll { a[$0][$0] <= 1e-12 * scale }
        let n = active.count
        guard n > 0 else { return 0 }
        var matrix = active.map { i in active.map { j in a[i][j] } }
        var vector = active.map { x[$0] }
        var solution = vector
        var used = [Bool](repeating: false, count: n)
        for _ in 0..<n {
            var pivot = -1, best = 0.0
            for i in 0..<n where !used[i] && abs(matrix[i][i]) > best { best = abs(matrix[i][i]); pivot = i }
            if pivot < 0 || best <= 1e-12 * scale { break }
            used[pivot] = true
            let p = matrix[pivot][pivot]
            for i in 0..<n where i != pivot {
                let factor = matrix[i][pivot] / p
                if factor == 0 { continue }
                for j in 0..<n { matrix[i][j] -= factor * matrix[pivot][j] }
                vector[i] -= factor * vector[pivot]
            }
        }
        for i in 0..<n { solution[i] = used[i] ? vector[i] / matrix[i][i] : 0 }
        return zip(active.map { x[$0] }, solution).map { $0 * $1 }.reduce(0, +)
    }
}
