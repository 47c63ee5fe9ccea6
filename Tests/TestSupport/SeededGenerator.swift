import Statistics

/// A deterministic random number generator, so randomised tests repeat exactly: the Statistics
/// target's SplitMix64 (the same sequence for the same seed).
public typealias SeededGenerator = SplitMix64
