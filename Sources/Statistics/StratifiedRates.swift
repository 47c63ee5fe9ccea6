/// Period-stratified rates for bandits: within each period the arms' rates over the
/// users first exposed in it; across periods, weighted by the period's share of the compared
/// users. Periods are never pooled, so a drift in who arrives when (while weights move) cannot
/// pose as an effect.
public enum StratifiedRates {
    /// One arm's users and successes in one period.
    public struct Cell: Sendable, Equatable {
        public var users: Int
        public var count: Int
        public init(users: Int, count: Int) { self.users = users; self.count = count }
        var rate: Double { users > 0 ? Double(count) / Double(users) : 0 }
        var variance: Double { users > 0 ? rate * (1 - rate) / Double(users) : 0 }
    }

    /// A stratified difference (treatment − control) with its normal test and interval.
    public struct Comparison: Sendable, Equatable {
        public var control: Double
        public var treatment: Double
        public var difference: Double
        public var standardError: Double
        /// Two-sided p of the z test of no difference; 1 when the standard error is 0.
        public var pValue: Double
        public var interval: [Double]
        /// Users in the periods compared (periods where either arm has none are left out).
        public var users: Int
    }

    /// `control[k]`, `treatment[k]`: period k's cells. nil when no period has users on both sides.
    public static func compare(control: [Cell], treatment: [Cell], level: Double = 0.95) -> Comparison? {
        let periods = control.indices.filter { $0 < treatment.count && control[$0].users > 0 && treatment[$0].users > 0 }
        let total = periods.reduce(0) { $0 + control[$1].users + treatment[$1].users }
        guard total > 0 else { return nil }
        var c = 0.0, t = 0.0, variance = 0.0
        for k in periods {
            let w = Double(control[k].users + treatment[k].users) / Double(total)
            c += w * control[k].rate
            t += w * treatment[k].rate
            variance += w * w * (control[k].variance + treatment[k].variance)
        }
        let se = variance.squareRoot(), d = t - c
        let z = Normal.upperQuantile((1 - level) / 2)
        let p = se > 0 ? 2 * Normal.survival(abs(d) / se) : 1
        return Comparison(control: c, treatment: t, difference: d, standardError: se, pValue: min(1, p),
                          interval: [d - z * se, d + z * se], users: total)
    }

    /// Each arm's stratified rate and its variance over the periods where every arm has users,
    /// each period weighted by its share of those users: `cells[arm][period]`.
    public static func rates(_ cells: [[Cell]]) -> [(rate: Double, variance: Double)] {
        let periods = (cells.map(\.count).min() ?? 0)
        let used = (0..<periods).filter { k in cells.allSatisfy { $0[k].users > 0 } }
        let total = used.reduce(0) { sum, k in sum + cells.reduce(0) { $0 + $1[k].users } }
        return cells.map { arm in
            guard total > 0 else { return (0, 0) }
            var r = 0.0, v = 0.0
            for k in used {
                let w = Double(cells.reduce(0) { $0 + $1[k].users }) / Double(total)
                r += w * arm[k].rate
                v += w * w * arm[k].variance
            }
            return (r, v)
        }
    }

    /// `chance_best`: each arm's probability of having the highest rate under independent normal
    /// approximations of its stratified rate, by numerical integration.
    public static func chanceBest(_ cells: [[Cell]]) -> [Double]? {
        let r = rates(cells)
        guard r.count >= 2, r.allSatisfy({ $0.variance > 0 }) else { return nil }
        let sd = r.map { $0.variance.squareRoot() }
        return r.indices.map { i in
            let lo = r.indices.map { r[$0].rate - 12 * sd[$0] }.min()!, hi = r.indices.map { r[$0].rate + 12 * sd[$0] }.max()!
            var points = [lo, hi]
            for j in r.indices { for s in stride(from: -8.0, through: 8.0, by: 1) { points.append(min(hi, max(lo, r[j].rate + s * sd[j]))) } }
            let v = Quadrature.integrate({ x in
                var f = Normal.pdf((x - r[i].rate) / sd[i]) / sd[i]
                for j in r.indices where j != i {
                    if f == 0 { break }
                    f *= Normal.cdf((x - r[j].rate) / sd[j])
                }
                return f
            }, points: points, tolerance: 1e-10)
            return min(1, max(0, v))
        }
    }

    /// The sample ratio check of a bandit: one chi-square over the period × arm cells against each
    /// period's weights, with Σ(arms − 1) degrees of freedom (arms with weight 0 in a period are
    /// left out of it). `users[k][a]`, `weights[k][a]`. nil when no period has two weighted arms.
    public static func sampleRatio(users: [[Int]], weights: [[Double]]) -> (statistic: Double, degreesOfFreedom: Int, pValue: Double)? {
        var chi = 0.0, df = 0
        for (n, w) in zip(users, weights) {
            let arms = w.indices.filter { w[$0] > 0 }
            let total = arms.reduce(0) { $0 + n[$1] }, mass = arms.reduce(0.0) { $0 + w[$1] }
            guard arms.count >= 2, total > 0 else { continue }
            for a in arms {
                let expected = Double(total) * w[a] / mass
                chi += (Double(n[a]) - expected) * (Double(n[a]) - expected) / expected
            }
            df += arms.count - 1
        }
        guard df > 0 else { return nil }
        return (chi, df, ChiSquare.survival(chi, degreesOfFreedom: Double(df)))
    }
}
