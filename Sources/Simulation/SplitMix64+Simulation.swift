import Statistics

extension SplitMix64 {
    /// An independent stream for item `index` of a run: the same user gets the same draws however the run is split.
    init(seed: UInt64, stream index: UInt64) {
        var mixer = SplitMix64(seed: seed ^ (index &* 0x9E37_79B9_7F4A_7C15))
        self.init(seed: mixer.next())
    }

    /// Uniform in [0, 1) with 53 random bits.
    mutating func uniform() -> Double { Double(next() >> 11) * 0x1p-53 }

    /// True with probability `p`.
    mutating func chance(_ p: Double) -> Bool { uniform() < p }

    /// Uniform in [a, b).
    mutating func uniform(_ a: Double, _ b: Double) -> Double { a + (b - a) * uniform() }

    /// One key drawn by weight; nil for an empty list.
    mutating func pick(_ weighted: [(String, Double)]) -> String? {
        let total = weighted.reduce(0) { $0 + $1.1 }
        guard total > 0 else { return nil }
        var u = uniform() * total
        for (key, w) in weighted {
            if u < w { return key }
            u -= w
        }
        return weighted.last?.0
    }

    /// A Beta(a, b) draw.
    mutating func beta(_ a: Double, _ b: Double) -> Double { RandomVariates.beta(a, b, using: &self) }
}
