/// Where each safeguard's mixing scale is kept once fixed (`SafeguardScale`).
public protocol SafeguardScaleStore: Sendable {
    /// Keeps `scale` unless one is already kept for its (experiment, arm, metric), and returns the
    /// one kept: the first writer wins, so two nodes fixing it at once read back the same scale.
    func fixSafeguardScale(_ scale: SafeguardScale) throws -> SafeguardScale
}
