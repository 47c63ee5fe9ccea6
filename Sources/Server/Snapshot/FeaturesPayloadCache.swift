import ExperimentDefinitions
import Foundation
import GrowthBookPayload
import Synchronization

/// The GrowthBook SDK payload of one snapshot, built on first use and again only when an
/// experiment's start, end or rollout stage boundary passes (a reload, a safeguard stop or a
/// reset makes a new snapshot, hence a new cache).
final class FeaturesPayloadCache: Sendable {
    private let catalog: ExperimentCatalog
    private let clock: @Sendable () -> Date
    private let current = Mutex<GrowthBookPayload?>(nil)
    /// The safeguard stops in force for this snapshot (a stop or reset makes a new snapshot).
    private let stops: [String: GrowthBookPayload.Safeguarded]

    init(catalog: ExperimentCatalog, stops: [String: GrowthBookPayload.Safeguarded] = [:], clock: @escaping @Sendable () -> Date = { Date() }) {
        self.catalog = catalog
        self.stops = stops
        self.clock = clock
    }

    /// The payload for now.
    var payload: GrowthBookPayload {
        let now = clock()
        return current.withLock { cached in
            if let cached, cached.isCurrent(at: now) { return cached }
            let built = GrowthBookPayload.build(catalog: catalog, now: now, stops: stops)
            cached = built
            return built
        }
    }
}
