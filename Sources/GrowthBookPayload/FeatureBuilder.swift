import ExperimentDefinitions
import PaywallCopy

/// Writes the features of the GrowthBook payload so that an SDK gives every user what
/// `/v1/assign` gives, in the order of its checks: forced users, then global holdouts, then the
/// status (a shipped experiment's winner), targeting, namespace, coverage and bucket.
///
/// A feature's value is the paywall as `/v1/assign` resolves it for a request with no variables
/// and no signals, or `false` for no paywall: GrowthBook reads a `null` force as no force at all.
struct FeatureBuilder {
    let products: Products
    /// Every holdout's id: each is a feature whose value is `holdout` or `general`.
    let holdoutIDs: [String]
    /// Running experiments inside their dates now.
    let live: Set<String>
    /// The storefront currency the paywalls are priced in (the default storefront's unless told).
    var currency: String?
    /// Per live experiment with a rollout, the share of its coverage in force now.
    var rolloutShares: [String: Double] = [:]
    /// Per experiment, the arms a safeguard stopped: their users see the control's paywall.
    var stoppedArms: [String: Set<String>] = [:]

    /// The feature value of a paywall.
    func value(_ paywall: Paywall?) -> JSONValue {
        paywall.map { PaywallResolver.resolve($0, products: products, request: PaywallRequest(), currency: currency).json } ?? .bool(false)
    }

    /// `parentConditions` that skip a rule for users some holdout holds out.
    var notHeldOut: JSONValue {
        .array(holdoutIDs.map { .object([("id", .string($0)), ("condition", .object([("value", .object([("$ne", .string(Experiment.holdoutArm))]))]))]) })
    }

    /// A global holdout: forced users, then its experiment rule (arms `holdout` and `general`).
    func holdoutFeature(_ h: Experiment) -> JSONValue {
        var rules = forcedRules(h, values: h.variants.map { .string($0.key) }, audience: nil)
        if live.contains(h.id) { rules.append(experimentRule(h, values: h.variants.map { .string($0.key) }, audience: nil, underHoldouts: false)) }
        return .object([("defaultValue", .null), ("rules", .array(rules))])
    }

    /// An experiment's own feature (no placement): forced users; held-out users get the control's
    /// paywall; then the experiment rule, or a shipped experiment's winner under its targeting.
    func experimentFeature(_ e: Experiment) -> JSONValue {
        let values = e.variants.map { value($0.paywall) }
        var rules = forcedRules(e, values: values, audience: nil)
        let control = values.first ?? .bool(false)
        for id in holdoutIDs {
            rules.append(.object([
                ("parentConditions", .array([.object([("id", .string(id)), ("condition", .object([("value", .string(Experiment.holdoutArm))]))])])),
                ("force", control),
            ]))
        }
        rules += mainRules(e, values: values, audience: nil)
        return .object([("defaultValue", .null), ("rules", .array(rules))])
    }

    /// `placement:ID`: per audience, top to bottom, what `/v1/assign` with the placement does.
    /// An audience with an experiment gives its forced users, its experiment (or shipped winner),
    /// then the default under the same condition, so a user the experiment does not take stops there.
    func placementFeature(_ p: Placement, experiments catalog: ExperimentCatalog) -> JSONValue {
        let fallback = value(p.defaultPaywall)
        var rules: [JSONValue] = []
        for audience in p.audiences {
            switch audience.shows {
            case .paywall(let paywall):
                rules.append(force(value(paywall), condition: audience.condition))
            case .experiment(let id):
                if let e = catalog.experiment(id) {
                    let values = e.variants.map { value($0.paywall) }
                    rules += forcedRules(e, values: values, audience: audience.condition)
                    rules += mainRules(e, values: values, audience: audience.condition)
                }
                rules.append(force(fallback, condition: audience.condition))
            }
            // A rule with no condition takes everyone: nothing after it is ever reached.
            if audience.condition == nil { break }
        }
        return .object([("defaultValue", fallback), ("rules", .array(rules))])
    }

    /// The experiment rule of a live experiment, or a shipped one's force rule to the winner.
    func mainRules(_ e: Experiment, values: [JSONValue], audience: JSONValue?) -> [JSONValue] {
        if e.status == .shipped, let winner = e.variants.firstIndex(where: { $0.key == e.winner }) {
            var rule: [(String, JSONValue)] = []
            if let condition = Self.all([audience, TargetingCondition.condition(targeting: e.targeting, own: e.condition)]) { rule.append(("condition", condition)) }
            if !holdoutIDs.isEmpty { rule.append(("parentConditions", notHeldOut)) }
            rule.append(("force", values[winner]))
            return [.object(rule)]
        }
        guard live.contains(e.id) else { return [] }
        return [experimentRule(e, values: values, audience: audience, underHoldouts: true)]
    }

    func forcedRules(_ e: Experiment, values: [JSONValue], audience: JSONValue?) -> [JSONValue] {
        e.forced.sorted(by: { $0.key < $1.key }).compactMap { (user, key) -> JSONValue? in
            guard let i = e.variants.firstIndex(where: { $0.key == key }) else { return nil }
            return force(values[i], condition: Self.all([audience, .object([("id", .string(user.text))])]))
        }
    }

    /// Forced users keep their arm (the forced rules come first); everyone else in a stopped
    /// arm sees the control's paywall, as `/v1/assign` answers them.
    func experimentRule(_ e: Experiment, values: [JSONValue], audience: JSONValue?, underHoldouts: Bool) -> JSONValue {
        var values = values
        if let stopped = stoppedArms[e.id], let control = values.first {
            for (i, v) in e.variants.enumerated() where stopped.contains(v.key) { values[i] = control }
        }
        var rule: [(String, JSONValue)] = [
            ("key", .string(e.id)),
            ("seed", .string(e.seed)),
            ("hashVersion", .number(Double(e.hashVersion))),
            ("hashAttribute", .string("id")),
            ("coverage", .number(e.coverage * (rolloutShares[e.id] ?? 1))),
            ("weights", .array(e.normalizedWeights.map { .number($0) })),
            ("variations", .array(values)),
            ("meta", .array(e.variants.map { .object([("key", .string($0.key))]) })),
            ("name", .string(e.name)),
            ("phase", .string("0")),
        ]
        if let ns = e.namespace { rule.append(("namespace", .array([.string(ns.id), .number(ns.start), .number(ns.end)]))) }
        if let condition = Self.all([audience, TargetingCondition.condition(targeting: e.targeting, own: e.condition)]) { rule.append(("condition", condition)) }
        if underHoldouts && !holdoutIDs.isEmpty { rule.append(("parentConditions", notHeldOut)) }
        return .object(rule)
    }

    func force(_ value: JSONValue, condition: JSONValue?) -> JSONValue {
        var rule: [(String, JSONValue)] = []
        if let condition { rule.append(("condition", condition)) }
        rule.append(("force", value))
        return .object(rule)
    }

    /// The conditions joined by `$and`; nil when there are none.
    static func all(_ parts: [JSONValue?]) -> JSONValue? {
        let present = parts.compactMap { $0 }
        switch present.count {
        case 0: return nil
        case 1: return present[0]
        default: return .object([("$and", .array(present))])
        }
    }
}
