import ExperimentDefinitions
import Foundation
import GrowthBookPayload
import Synchronization

/// The GrowthBook SDK payload of one snapshot, built on first use and again only when an
/// experiment's start or end passes (a reload makes a new snapshot, hence a new cache).
final class FeaturesPayloadCache: Sendable {
    private let catalog: ExperimentCatalog
    private let clock: @Sendable () -> Date
    private let current = Mutex<GrowthBookPayload?>(nil)

    init(catalog: ExperimentCatalog, clock: @escaping @Sendable () -> Date = { Date() }) {
        self.catalog = catalog
        self.clock = clock
    }

    /// The payload for now.
    var payload: GrowthBookPayload {
        let now = clock()
        return current.withLock { cached in
            if let cached, cached.isCurrent(at: now) { return cached }
            let built = GrowthBookPayload.build(catalog: catalog, now: now)
            cached = built
            return built
        }
    }
}
