/// Adjusted p-values for several comparisons in one metric (statsmodels `multipletests`).
///
/// Both functions return the adjusted values in the input order, capped at 1.
/// They throw for a NaN or out-of-range p-value; an empty list gives an empty list.
public enum MultipleTesting {
    /// Holm's step-down adjustment (controls the family-wise error rate).
    public static func holm(_ pValues: [Double]) throws -> [Double] {
        for p in pValues { try Check.probability(p, "pValues") }
        let m = pValues.count
        let order = pValues.indices.sorted { pValues[$0] < pValues[$1] }
        var adjusted = [Double](repeating: 0, count: m)
        var running = 0.0
        for (rank, index) in order.enumerated() {
            running = max(running, min(1, Double(m - rank) * pValues[index]))
            adjusted[index] = running
        }
        return adjusted
    }

    /// Holm over the p-values that exist: a nil (a test that could not be run) is no member of the
    /// family and stays nil; the others are adjusted among themselves, in the input order.
    public static func holm(_ pValues: [Double?]) throws -> [Double?] {
        let present = pValues.indices.filter { pValues[$0] != nil }
        var out = [Double?](repeating: nil, count: pValues.count)
        for (i, p) in zip(present, try holm(present.map { pValues[$0]! })) { out[i] = p }
        return out
    }

    /// Benjamini–Hochberg step-up adjustment (controls the false discovery rate).
    public static func benjaminiHochberg(_ pValues: [Double]) throws -> [Double] {
        for p in pValues { try Check.probability(p, "pValues") }
        let m = pValues.count
        let order = pValues.indices.sorted { pValues[$0] < pValues[$1] }
        var adjusted = [Double](repeating: 0, count: m)
        var running = 1.0
        for rank in stride(from: m - 1, through: 0, by: -1) {
            let index = order[rank]
            running = min(running, Double(m) / Double(rank + 1) * pValues[index])
            adjusted[index] = running
        }
        return adjusted
    }
}
