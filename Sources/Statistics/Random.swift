import Foundation

/// SplitMix64: a small, fast, seedable random number generator for simulations and tests.
///
/// Deterministic for a given seed on every platform (Steele, Lea & Flood 2014).
/// Not for cryptography.
public struct SplitMix64: RandomNumberGenerator, Sendable, Equatable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Exact random variates used by simulations.
public enum RandomVariates {
    /// A uniform draw in (0, 1] with 53 random bits.
    public static func unitInterval(using generator: inout some RandomNumberGenerator) -> Double {
        Double((generator.next() >> 11) + 1) * 0x1p-53
    }

    /// An exact Binomial(trials, probability) draw.
    ///
    /// Skips between successes with geometric gaps, so the cost is proportional to
    /// trials × min(p, 1 − p). Throws for negative trials or p outside [0, 1].
    public static func binomial(trials: Int, probability p: Double, using generator: inout some RandomNumberGenerator) throws -> Int {
        try Check.nonNegative(trials, "trials")
        try Check.probability(p, "probability")
        let q = min(p, 1 - p)
        if q == 0 || trials == 0 { return p > 0.5 ? trials : 0 }
        let logFailure = log1p(-q)
        var successes = 0
        var position = 0
        while true {
            // Failures before the next success: floor(log U / log(1 − q)).
            let gap = (log(unitInterval(using: &generator)) / logFailure).rounded(.down)
            if gap >= Double(trials - position) { break }
            position += Int(gap) + 1
            successes += 1
            if position >= trials { break }
        }
        return p > 0.5 ? trials - successes : successes
    }
}
