/// The chi-square distribution with k > 0 degrees of freedom.
///
/// NaN in, NaN out; public tests validate before calling.
public enum ChiSquare {
    /// P(X <= x).
    public static func cdf(_ x: Double, degreesOfFreedom k: Double) -> Double {
        guard x >= 0 else { return x.isNaN ? .nan : 0 }
        return SpecialFunctions.regularizedGammaP(k / 2, x / 2)
    }

    /// P(X > x), the p-value of a chi-square statistic; accurate far into the tail.
    public static func survival(_ x: Double, degreesOfFreedom k: Double) -> Double {
        guard x >= 0 else { return x.isNaN ? .nan : 1 }
        return SpecialFunctions.regularizedGammaQ(k / 2, x / 2)
    }
}

extension ChiSquare {
    /// Pearson's test of independence of a table's rows and columns (no continuity correction, as
    /// `scipy.stats.chi2_contingency(table, correction=False)`); rows and columns with no count are
    /// left out. nil when fewer than two rows or columns remain.
    public static func independence(_ table: [[Int]]) -> (statistic: Double, degreesOfFreedom: Int, pValue: Double)? {
        let rows = table.filter { $0.contains { $0 > 0 } }
        guard let width = rows.first?.count, rows.allSatisfy({ $0.count == width }) else { return nil }
        let columns = (0..<width).filter { c in rows.contains { $0[c] > 0 } }
        guard rows.count >= 2, columns.count >= 2 else { return nil }
        let rowSums = rows.map { r in columns.reduce(0.0) { $0 + Double(r[$1]) } }
        let columnSums = columns.map { c in rows.reduce(0.0) { $0 + Double($1[c]) } }
        let total = rowSums.reduce(0, +)
        var chi = 0.0
        for (i, r) in rows.enumerated() {
            for (j, c) in columns.enumerated() {
                let expected = rowSums[i] * columnSums[j] / total
                chi += (Double(r[c]) - expected) * (Double(r[c]) - expected) / expected
            }
        }
        let df = (rows.count - 1) * (columns.count - 1)
        return (chi, df, survival(chi, degreesOfFreedom: Double(df)))
    }
}
