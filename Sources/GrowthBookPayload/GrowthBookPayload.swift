import ExperimentDefinitions
import Foundation
import PaywallCopy

/// The experiments as a GrowthBook SDK payload (SPEC §7, "GrowthBook SDK payload"): the body of
/// `GET /api/features/{clientKey}` and of `abctl export --format growthbook`.
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

    public static func build(catalog: ExperimentCatalog, now: Date) -> GrowthBookPayload {
        var features: [(String, JSONValue)] = []
        var validFrom: Date?, validUntil: Date?
        for e in catalog.experiments where e.status == .running {
            for boundary in [e.start, e.end].compactMap({ $0 }) {
                if boundary > now { validUntil = min(validUntil ?? boundary, boundary) } else { validFrom = max(validFrom ?? boundary, boundary) }
            }
            if let start = e.start, now < start { continue }
            if let end = e.end, now >= end { continue }
            features.append((e.id, feature(e, products: catalog.products)))
        }
        let featuresJSON = JSONValue.object(features).serialized()
        var body = #"{"status":200,"features":"#
        body += featuresJSON
        body += #","dateUpdated":"#
        JSONValue.writeString(RFC3339.format(now), to: &body)
        body += "}"
        return GrowthBookPayload(body: Array(body.utf8), etag: entityTag(Array(featuresJSON.utf8)), validFrom: validFrom, validUntil: validUntil)
    }

    /// Whether this payload is still the one for `now`.
    public func isCurrent(at now: Date) -> Bool {
        if let validFrom, now < validFrom { return false }
        if let validUntil, now >= validUntil { return false }
        return true
    }

    static func feature(_ e: Experiment, products: Products) -> JSONValue {
        let paywalls = e.variants.map { PaywallResolver.resolve($0.paywall, products: products, request: PaywallRequest()).json }
        var rules: [JSONValue] = []
        for (user, key) in e.forced.sorted(by: { $0.key < $1.key }) {
            guard let i = e.variants.firstIndex(where: { $0.key == key }) else { continue }
            rules.append(.object([("condition", .object([("id", .string(user.text))])), ("force", paywalls[i])]))
        }
        var rule: [(String, JSONValue)] = [
            ("key", .string(e.id)),
            ("seed", .string(e.seed)),
            ("hashVersion", .number(Double(e.hashVersion))),
            ("hashAttribute", .string("id")),
            ("coverage", .number(e.coverage)),
            ("weights", .array(e.normalizedWeights.map { .number($0) })),
            ("variations", .array(paywalls)),
            ("meta", .array(e.variants.map { .object([("key", .string($0.key))]) })),
            ("name", .string(e.name)),
            ("phase", .string("0")),
        ]
        if let ns = e.namespace { rule.append(("namespace", .array([.string(ns.id), .number(ns.start), .number(ns.end)]))) }
        if let condition = TargetingCondition.condition(targeting: e.targeting, own: e.condition) { rule.append(("condition", condition)) }
        rules.append(.object(rule))
        return .object([("defaultValue", .null), ("rules", .array(rules))])
    }

    /// `"` + FNV-1a 64 of the bytes + length + `"`: equal features give equal tags on every node.
    static func entityTag(_ bytes: [UInt8]) -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01b3 }
        return "\"" + String(h, radix: 16) + "-" + String(bytes.count, radix: 16) + "\""
    }
}
