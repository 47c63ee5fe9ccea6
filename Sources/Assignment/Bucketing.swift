/// GrowthBook-compatible hashing and bucketing, as pure functions.
///
/// These mirror the functions of GrowthBook's SDKs that `conformance/growthbook-cases.json`
/// pins down: `hash`, `getBucketRange`, `chooseVariation`, `inNamespace`, `getEqualWeights`.
/// Ranges are half-open everywhere: `start <= n < end`.
public enum Bucketing {
    /// GrowthBook's `hash(seed, value, version)`: a number in [0, 1), or nil for an unknown version.
    ///
    /// - version 1: `(fnv1a32(value + seed) % 1000) / 1000`
    /// - version 2: `(fnv1a32(String(fnv1a32(seed + value))) % 10000) / 10000`
    @inlinable
    public static func hash(seed: String, value: String, version: Int) -> Double? {
        switch version {
        case 2: return hashV2(seedState: FNV1a.update(FNV1a.offsetBasis, with: seed), value: value)
        case 1: return hashV1(value: value, seed: seed)
        default: return nil
        }
    }

    /// Version 2 given the FNV state after the seed (so callers hash a seed once, not per user).
    @inlinable @inline(__always)
    public static func hashV2(seedState: UInt32, value: String) -> Double {
        let inner = FNV1a.update(seedState, with: value)
        let outer = FNV1a.update(FNV1a.offsetBasis, decimal: inner)
        return Double(outer % 10_000) / 10_000
    }

    /// Version 1: `(fnv1a32(value + seed) % 1000) / 1000`.
    @inlinable
    public static func hashV1(value: String, seed: String) -> Double {
        let h = FNV1a.update(FNV1a.update(FNV1a.offsetBasis, with: value), with: seed)
        return Double(h % 1_000) / 1_000
    }

    /// `numVariations` equal weights; empty below 1.
    public static func equalWeights(_ numVariations: Int) -> [Double] {
        guard numVariations >= 1 else { return [] }
        return Array(repeating: 1.0 / Double(numVariations), count: numVariations)
    }

    /// GrowthBook's `getBucketRanges`: coverage is clamped to [0, 1]; weights that are missing,
    /// of the wrong length, negative, not finite, or that do not sum to within [0.99, 1.01] are
    /// replaced by equal weights; variant i gets `[c_i, c_i + coverage × w_i)` where `c_i` is
    /// the sum of the weights before it (so reduced coverage leaves gaps after each range).
    ///
    /// The experiment model's weights are "any positive numbers", so `Assigner` normalises
    /// them by their sum before calling this.
    public static func bucketRanges(numVariations: Int, coverage: Double = 1, weights: [Double]? = nil) -> [Range<Double>] {
        let cover = coverage.isNaN ? 0 : min(max(coverage, 0), 1)
        var w = weights ?? []
        if !isValidWeightVector(w, numVariations) { w = equalWeights(numVariations) }
        var ranges: [Range<Double>] = []
        ranges.reserveCapacity(w.count)
        var cumulative = 0.0
        for weight in w {
            let start = cumulative
            cumulative += weight
            ranges.append(start..<(start + cover * weight))
        }
        return ranges
    }

    static func isValidWeightVector(_ w: [Double], _ n: Int) -> Bool {
        guard w.count == n, w.allSatisfy({ $0.isFinite && $0 >= 0 }) else { return false }
        let sum = w.reduce(0, +)
        return sum >= 0.99 && sum <= 1.01
    }

    /// GrowthBook's `chooseVariation`: the index of the first range holding `n`, or -1.
    @inlinable
    public static func chooseVariation(_ n: Double, ranges: [Range<Double>]) -> Int {
        for i in ranges.indices where ranges[i].lowerBound <= n && n < ranges[i].upperBound {
            return i
        }
        return -1
    }

    /// GrowthBook's `inNamespace`: `hash("__" + id, userID, 1)` in `[start, end)`.
    @inlinable
    public static func inNamespace(userID: String, namespaceID: String, start: Double, end: Double) -> Bool {
        let n = namespaceHash(userID: userID, namespaceID: namespaceID)
        return start <= n && n < end
    }

    /// The namespace position of a user: `hash("__" + namespaceID, userID, 1)`.
    @inlinable
    public static func namespaceHash(userID: String, namespaceID: String) -> Double {
        var h = FNV1a.update(FNV1a.offsetBasis, with: userID)
        h = (h ^ 0x5F) &* FNV1a.prime
        h = (h ^ 0x5F) &* FNV1a.prime
        h = FNV1a.update(h, with: namespaceID)
        return Double(h % 1_000) / 1_000
    }
}
