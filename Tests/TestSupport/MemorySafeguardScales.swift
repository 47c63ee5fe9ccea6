import Events
import Foundation

/// Safeguard scales in memory, kept the way the stores keep them (the first fixed wins), for
/// evaluating simulated runs without a store; the conformance suite checks the real stores.
public final class MemorySafeguardScales: SafeguardScaleStore, @unchecked Sendable {
    private let lock = NSLock()
    private var kept: [String: SafeguardScale] = [:]

    public init() {}

    public func fixSafeguardScale(_ scale: SafeguardScale) throws -> SafeguardScale {
        lock.withLock {
            let key = [scale.experiment, scale.arm, scale.metric].joined(separator: "\u{0}")
            if let first = kept[key] { return first }
            kept[key] = scale
            return scale
        }
    }

    /// Every scale kept, in no particular order.
    public var all: [SafeguardScale] { lock.withLock { Array(kept.values) } }
}
