import Statistics

/// The weights of a learned period: each running arm's chance of having the highest
/// reward rate under Beta(1 + x, 1 + n − x), by numerical integration (no sampling, so every node
/// and every rerun gets the same weights), floored at `minShare`; a stopped arm gets 0.
public enum BanditWeights {
    /// `rewards[i]` of `users[i]` mature users per arm; `running[i]` false for a stopped arm.
    public static func learned(users: [Int], rewards: [Int], running: [Bool], minShare: Double) throws -> [Double] {
        let live = users.indices.filter { running[$0] }
        var out = [Double](repeating: 0, count: users.count)
        guard !live.isEmpty else { return out }
        guard live.count >= 2 else { out[live[0]] = 1; return out }
        let arms = try live.map { try Proportion(count: rewards[$0], total: users[$0]) }
        let best = try BayesianComparison.chanceToBeBest(arms)
        for (k, i) in live.enumerated() { out[i] = best[k] }
        let floored = floor(live.map { out[$0] }, minShare: minShare)
        for (k, i) in live.enumerated() { out[i] = floored[k] }
        return out
    }

    /// Arms below `minShare` are set to it and the others share the rest in proportion to their
    /// values, repeated until none is below. `minShare` is at most 1 / count.
    public static func floor(_ p: [Double], minShare: Double) -> [Double] {
        let share = min(minShare, 1 / Double(p.count))
        var fixed = [Bool](repeating: false, count: p.count)
        var w = p
        while true {
            let free = p.indices.filter { !fixed[$0] }
            let rest = 1 - Double(p.count - free.count) * share
            let mass = free.reduce(0) { $0 + p[$1] }
            for i in free { w[i] = mass > 0 ? rest * p[i] / mass : rest / Double(free.count) }
            let below = free.filter { w[$0] < share }
            if below.isEmpty { break }
            for i in below { fixed[i] = true; w[i] = share }
        }
        return w
    }
}
