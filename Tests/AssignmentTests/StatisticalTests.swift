import Testing
import ExperimentDefinitions
@testable import Assignment

/// Distribution checks on 200,000 ids. Everything is deterministic (fixed ids, fixed seeds),
/// so a threshold is a fixed bar, not a flaky one: each statistic must stay below the
/// chi-square critical value at p = 0.001, and a negative control shows the same test
/// rejects a hash that really is dependent.
@Suite struct StatisticalTests {
    static let n = 200_000
    static let ids: [UserID] = (0..<n).map { "user-\($0)" }

    /// Chi-square critical values at p = 0.001 by degrees of freedom.
    static let critical: [Int: Double] = [1: 10.828, 2: 13.816, 3: 16.266, 4: 18.467, 9: 27.877]

    static func experiment(_ seed: String, _ weights: [Double], version: Int = 2) throws -> AssignableExperiment {
        try AssignableExperiment(id: seed, status: .running, seed: seed, hashVersion: version,
                                 variants: weights.enumerated().map { (key: "v\($0.offset)", weight: $0.element) })
    }

    static func variants(_ e: AssignableExperiment) -> [Int] {
        let assigner = Assigner(experiments: [e])
        return ids.map { assigner.assign(userID: $0, attributes: [:], experiment: e, now: .distantPast).variantIndex! }
    }

    static func goodnessOfFit(_ counts: [Int], _ weights: [Double]) -> Double {
        let total = Double(counts.reduce(0, +)), wsum = weights.reduce(0, +)
        return zip(counts, weights).reduce(0) { acc, cw in
            let expected = total * cw.1 / wsum
            return acc + (Double(cw.0) - expected) * (Double(cw.0) - expected) / expected
        }
    }

    /// Pearson's chi-square statistic of independence for a k×k contingency table.
    static func independence(_ a: [Int], _ b: [Int], k: Int) -> Double {
        var table = [[Double]](repeating: [Double](repeating: 0, count: k), count: k)
        for (x, y) in zip(a, b) { table[x][y] += 1 }
        let total = Double(a.count)
        let rows = table.map { $0.reduce(0, +) }
        let cols = (0..<k).map { j in table.reduce(0) { $0 + $1[j] } }
        var chi = 0.0
        for i in 0..<k { for j in 0..<k {
            let e = rows[i] * cols[j] / total
            chi += (table[i][j] - e) * (table[i][j] - e) / e
        } }
        return chi
    }

    @Test(arguments: [[1.0, 1.0], [1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0], [1.0, 3.0], [1.0, 2.0, 3.0, 4.0]])
    func sharesMatchWeights(_ weights: [Double]) throws {
        let e = try Self.experiment("share-test", weights)
        var counts = [Int](repeating: 0, count: weights.count)
        for v in Self.variants(e) { counts[v] += 1 }
        let chi = Self.goodnessOfFit(counts, weights)
        #expect(chi < Self.critical[weights.count - 1]!, "counts \(counts), chi² \(chi)")
    }

    @Test(arguments: [2, 3, 4])
    func differentSeedsAreIndependent(_ k: Int) throws {
        let weights = [Double](repeating: 1, count: k)
        let a = Self.variants(try Self.experiment("chorus-paywall-copy", weights))
        let b = Self.variants(try Self.experiment("trial-length", weights))
        let chi = Self.independence(a, b, k: k)
        #expect(chi < Self.critical[(k - 1) * (k - 1)]!, "chi² \(chi)")
    }

    /// The test has teeth: plain FNV-1a modulo a power of two (the low bits) of seed + id
    /// depends on the seed only through a bijection of those same low bits, so two seeds give
    /// strongly dependent assignments, and the statistic is far above the bar.
    @Test func negativeControlPlainFNVModuloFourIsDependent() {
        let lowBits: (String) -> [Int] = { seed in
            Self.ids.map { Int(FNV1a.update(FNV1a.update(FNV1a.offsetBasis, with: seed), with: $0.text) % 4) }
        }
        let chi = Self.independence(lowBits("chorus-paywall-copy"), lowBits("trial-length"), k: 4)
        #expect(chi > 100 * Self.critical[9]!, "chi² \(chi)")
    }

    /// Version 2 buckets spread evenly over [0, 1): 100 bins.
    @Test func bucketsAreUniform() throws {
        let e = try Self.experiment("uniform", [1, 1])
        var bins = [Int](repeating: 0, count: 100)
        for id in Self.ids { bins[min(99, Int(e.bucket(userID: id.text) * 100))] += 1 }
        let chi = Self.goodnessOfFit(bins, [Double](repeating: 1, count: 100))
        #expect(chi < 148.23, "chi² \(chi) (critical value, 99 df, p = 0.001)")
    }
}
