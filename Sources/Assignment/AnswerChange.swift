import ExperimentDefinitions
import Foundation

/// How many of an experiment's users an edit of its file moves (`validate --against`).
///
/// A user's answer is the arm key the assigner gives, or "out" (namespace, coverage, bucket);
/// targeting, dates and sticky records are left aside: the share is what the hashing alone moves.
/// It is exact over the hash grids the assigner reads: version 2 buckets are k / 10,000, version 1
/// buckets and namespace positions are k / 1,000, each grid point compared with the ranges exactly
/// as the assigner compares it. A hash that both versions share (same seed and version; same
/// namespace id) gives the same grid point to a user in both; hashes that differ are taken as
/// independent, as the bucket hash and the namespace hash are of each other.
public enum AnswerChange {
    /// The share of `old`'s enrolled users at `now` (in its namespace range and bucket ranges)
    /// whose answer in `new` at `now` is different; 0 when `old` enrols nobody.
    public static func share(from old: Experiment, to new: Experiment, at now: Date) -> Double {
        guard let a = assignable(old), let b = assignable(new) else { return 1 }
        let namespace = namespaceOdds(old.namespace, new.namespace)
        let bucket = bucketOdds(a, b, now: now)
        // In grid counts, not fractions: where both versions share the hashes every product is a whole
        // number a double holds exactly, so 500 of 10,000 points is 0.05, not 1 - 0.95.
        let enrolled = namespace.old * bucket.old
        guard enrolled > 0 else { return 0 }
        return max(0, (enrolled - namespace.both * bucket.same) / enrolled)
    }

    /// The experiment as the assigner prepares it, without its condition (which the share does not read).
    private static func assignable(_ e: Experiment) -> AssignableExperiment? {
        try? AssignableExperiment(id: e.id, status: e.status, start: e.start, end: e.end, seed: e.seed, hashVersion: e.hashVersion,
                                  coverage: e.coverage, namespace: e.namespace, variants: e.variants.map { (key: $0.key, weight: $0.weight) },
                                  rollout: e.rollout, isHoldout: e.isHoldout)
    }

    /// How many of the namespace grid's 1,000 points are in old's range, and in both ranges (a
    /// product over 1,000 when the ids differ and the positions are independent).
    private static func namespaceOdds(_ old: Namespace?, _ new: Namespace?) -> (old: Double, both: Double) {
        let grid = 1_000
        func inside(_ ns: Namespace?, _ k: Int) -> Bool {
            guard let ns else { return true }
            let n = Double(k) / Double(grid)
            return ns.start <= n && n < ns.end
        }
        func count(_ ns: Namespace?) -> Double { Double((0..<grid).count { inside(ns, $0) }) }
        let pOld = count(old)
        // The same namespace id places a user at the same point in both versions; another id, independently.
        if let old, let new, old.id != new.id { return (pOld, pOld * count(new) / Double(grid)) }
        return (pOld, Double((0..<grid).count { inside(old, $0) && inside(new, $0) }))
    }

    /// How many points of old's bucket grid get an arm, and how many the same arm key in new (a sum
    /// of products scaled to old's grid when the hashes differ and are independent).
    private static func bucketOdds(_ a: AssignableExperiment, _ b: AssignableExperiment, now: Date) -> (old: Double, same: Double) {
        let rangesA = a.ranges(at: now), rangesB = b.ranges(at: now)
        func arm(_ e: AssignableExperiment, _ ranges: [Range<Double>], _ bucket: Double) -> String? {
            for i in ranges.indices where ranges[i].lowerBound <= bucket && bucket < ranges[i].upperBound { return e.variantKeys[i] }
            return nil
        }
        func grid(_ e: AssignableExperiment) -> Int { e.hashVersion == 2 ? 10_000 : 1_000 }
        /// Each arm key's count of grid points.
        func counts(_ e: AssignableExperiment, _ ranges: [Range<Double>]) -> [String: Double] {
            let n = grid(e)
            var counts: [String: Int] = [:]
            for k in 0..<n { if let key = arm(e, ranges, Double(k) / Double(n)) { counts[key, default: 0] += 1 } }
            return counts.mapValues(Double.init)
        }
        let countsA = counts(a, rangesA)
        let pOld = countsA.values.reduce(0, +)
        if a.seed == b.seed && a.hashVersion == b.hashVersion {
            let n = grid(a)
            var same = 0
            for k in 0..<n {
                let bucket = Double(k) / Double(n)
                if let key = arm(a, rangesA, bucket), key == arm(b, rangesB, bucket) { same += 1 }
            }
            return (pOld, Double(same))
        }
        // A new seed or hash version draws every user's bucket again, independently of the old one.
        let countsB = counts(b, rangesB), nB = Double(grid(b))
        return (pOld, countsA.reduce(0) { $0 + $1.value * (countsB[$1.key] ?? 0) / nB })
    }
}
