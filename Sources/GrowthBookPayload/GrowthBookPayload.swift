import ExperimentDefinitions
import Foundation
import PaywallCopy

/// The experiments as a GrowthBook SDK payload (the shape of GrowthBook's `/api/features`
/// answer): the body of `GET /api/features/{clientKey}` and of `abctl export --format growthbook`.
///
/// Each running experiment inside its dates at `now` is a feature keyed by its id: one `force`
/// rule per forced user, then one experiment rule with the seed, hash version, coverage,
/// normalised weights, namespace, and the targeting and condition as one GrowthBook condition
/// (`TargetingCondition`). Variations are each variant's paywall as `/v1/assign` resolves it
/// for a request with no variables and no signals.
public struct GrowthBookPayload: Sendable {
    /// The JSON body.
    public let body: [UInt8]
    /// A strong entity tag over the features (not `dateUpdated`), quoted, for `ETag`.
    public let etag: String
    /// The payload stays the same for `now` in `[validFrom, validUntil)`; an experiment starts
    /// or ends at those times (nil: never).
    public let validFrom: Date?
    public let validUntil: Date?

    /// - Parameter stops: per experiment id, the safeguard stops in force (`Safeguarded`): a
    ///   stopped arm's variation becomes the control's paywall and the rollout stays at the
    ///   stage it had at the first stop.
    /// - Parameter country: the storefront whose plans and discount text the variations carry;
    ///   nil, or a country with no storefront, is the default storefront's.
    public static func build(catalog: ExperimentCatalog, now: Date, stops: [String: Safeguarded] = [:], country: String? = nil) -> GrowthBookPayload {
        var features: [(String, JSONValue)] = []
        var validFrom: Date?, validUntil: Date?
        var live: Set<String> = []
        var shares: [String: Double] = [:]
        for e in catalog.experiments where e.status == .running {
            let held = stops[e.id]?.holdStageAt
            // Rollout stage boundaries change the coverage; a held rollout has none ahead.
            let stageEnds = held == nil ? e.start.map { e.rollout?.stageEnds(start: $0).compactMap { $0 } ?? [] } ?? [] : []
            for boundary in [e.start, e.end].compactMap({ $0 }) + stageEnds {
                if boundary > now { validUntil = min(validUntil ?? boundary, boundary) } else { validFrom = max(validFrom ?? boundary, boundary) }
            }
            if let start = e.start, now < start { continue }
            if let end = e.end, now >= end { continue }
            live.insert(e.id)
            if let rollout = e.rollout, let start = e.start {
                shares[e.id] = rollout.position(at: held.map { min($0, now) } ?? now, start: start).share
            }
        }
        let holdouts = catalog.experiments.filter(\.isHoldout)
        var builder = FeatureBuilder(products: catalog.products, holdoutIDs: holdouts.map(\.id), live: live)
        builder.currency = catalog.products.storefrontCurrency(country: country)
        builder.rolloutShares = shares
        builder.stoppedArms = stops.mapValues(\.stoppedArms)
        // Every holdout is a feature, so that rules may name it in parentConditions whatever its status.
        for h in holdouts { features.append((h.id, builder.holdoutFeature(h))) }
        // A running bandit's arms live in sticky records and changing weights, which an SDK on the
        // device cannot share: it is left out, and so is a placement that shows one.
        let bandits = Set(catalog.experiments.filter { $0.isBandit && $0.status != .shipped }.map(\.id))
        var omitted: [JSONValue] = []
        let reason = "a bandit: its weights are learned and its arms kept in the server's sticky records; use /v1/assign"
        for e in catalog.experiments where !e.isHoldout && (live.contains(e.id) || e.status == .shipped) {
            if bandits.contains(e.id) {
                omitted.append(.object([("experiment", .string(e.id)), ("reason", .string(reason))]))
                continue
            }
            features.append((e.id, builder.experimentFeature(e)))
        }
        for p in catalog.placements {
            if let id = p.audiences.compactMap({ a -> String? in if case .experiment(let id) = a.shows, bandits.contains(id) { id } else { nil } }).first {
                omitted.append(.object([("experiment", .string(id)), ("placement", .string(p.id)),
                                        ("reason", .string("its audience shows a bandit; use /v1/assign with the placement"))]))
                continue
            }
            features.append(("placement:" + p.id, builder.placementFeature(p, experiments: catalog)))
        }
        let featuresJSON = JSONValue.object(features).serialized()
        var body = #"{"status":200,"features":"#
        body += featuresJSON
        body += #","dateUpdated":"#
        JSONValue.writeString(RFC3339.format(now), to: &body)
        if !omitted.isEmpty { body += #","omitted":"# + JSONValue.array(omitted).serialized() }
        body += "}"
        return GrowthBookPayload(body: Array(body.utf8), etag: entityTag(Array(featuresJSON.utf8)), validFrom: validFrom, validUntil: validUntil)
    }

    /// Whether this payload is still the one for `now`.
    public func isCurrent(at now: Date) -> Bool {
        if let validFrom, now < validFrom { return false }
        if let validUntil, now >= validUntil { return false }
        return true
    }

    /// What the payload needs to know of one experiment's safeguard stops.
    public struct Safeguarded: Sendable, Equatable {
        /// Keys of the stopped arms.
        public var stoppedArms: Set<String>
        /// The time of the first stop in force.
        public var holdStageAt: Date?

        public init(stoppedArms: Set<String>, holdStageAt: Date?) {
            self.stoppedArms = stoppedArms
            self.holdStageAt = holdStageAt
        }
    }

    /// `"` + FNV-1a 64 of the bytes + length + `"`: equal features give equal tags on every node.
    static func entityTag(_ bytes: [UInt8]) -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01b3 }
        return "\"" + String(h, radix: 16) + "-" + String(bytes.count, radix: 16) + "\""
    }
}
