/// Sample quantiles as numpy computes them by default (`method="linear"`, type 7 of Hyndman and Fan).
public enum Quantile {
    /// The `p` quantile of `sorted` (ascending, not empty), 0 <= p <= 1, interpolating linearly between
    /// order statistics at index p·(n − 1), with numpy's arithmetic so results agree to the last bits.
    public static func linear(sorted: [Double], _ p: Double) throws -> Double {
        guard !sorted.isEmpty else { throw StatisticsError.insufficientData("a quantile of an empty sample") }
        guard p >= 0 && p <= 1 else { throw StatisticsError.invalidArgument(parameter: "p", reason: "must be in [0, 1], got \(p)") }
        let n = sorted.count
        // numpy: virtual index = n·p + (alpha + p·(1 − alpha − beta)) − 1 with alpha = beta = 1.
        let virtual = Double(n) * p + (1 + p * (1 - 1 - 1)) - 1
        let below = min(max(virtual.rounded(.down), 0), Double(n - 1))
        let i = Int(below), j = min(i + 1, n - 1)
        let t = virtual - below
        let a = sorted[i], b = sorted[j]
        let diff = b - a
        // numpy's _lerp: a + (b − a)·t, computed from b when t >= 0.5.
        return t >= 0.5 ? b - diff * (1 - t) : a + diff * t
    }
}
