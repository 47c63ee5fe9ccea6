import ExperimentDefinitions
import Foundation

/// A safeguard's decision that an arm harms a metric (docs/Safeguards.md): a durable record, the
/// same for every node, in force until someone resets it.
public struct SafeguardStop: Sendable, Equatable {
    /// Unique per stop: what a notification receiver deduplicates by.
    public var id: String
    public var experiment: String
    /// The harmful arm.
    public var arm: String
    public var metric: String
    /// `stop_arm` (only this arm's users get the control's paywall) or `stop_experiment` (every arm's).
    public var action: SafeguardsConfig.Action
    public var stoppedAt: Timestamp
    public var figures: SafeguardFigures
    /// Set when the stop was lifted (`abctl safeguards reset`), with who lifted it.
    public var resetAt: Timestamp?
    public var resetBy: String?
    /// When a `--notify-url` receiver acknowledged the notification of this stop, and of its reset.
    public var notifiedAt: Timestamp?
    public var resetNotifiedAt: Timestamp?

    public init(id: String = UUID().uuidString.lowercased(), experiment: String, arm: String, metric: String,
                action: SafeguardsConfig.Action, stoppedAt: Timestamp, figures: SafeguardFigures,
                resetAt: Timestamp? = nil, resetBy: String? = nil, notifiedAt: Timestamp? = nil, resetNotifiedAt: Timestamp? = nil) {
        self.id = id
        self.experiment = experiment
        self.arm = arm
        self.metric = metric
        self.action = action
        self.stoppedAt = stoppedAt
        self.figures = figures
        self.resetAt = resetAt
        self.resetBy = resetBy
        self.notifiedAt = notifiedAt
        self.resetNotifiedAt = resetNotifiedAt
    }

    /// Not reset.
    public var inForce: Bool { resetAt == nil }

    /// As JSON: what `GET /v1/experiments`, `abctl safeguards check` and notifications carry.
    public var json: JSONValue {
        .object([("id", .string(id)), ("experiment", .string(experiment)), ("arm", .string(arm)), ("metric", .string(metric)),
                 ("action", .string(action.rawValue)), ("at", .string(stoppedAt.rfc3339)), ("figures", figures.json),
                 ("reset_at", resetAt.map { .string($0.rfc3339) } ?? .null), ("reset_by", resetBy.map(JSONValue.string) ?? .null)])
    }
}

/// What the evaluation saw when it stopped an arm.
public struct SafeguardFigures: Sendable, Equatable {
    /// Mature users in the metric's denominator, and in its numerator, per side.
    public var controlUsers: Int
    public var controlCount: Int
    public var armUsers: Int
    public var armCount: Int
    /// arm rate − control rate.
    public var difference: Double
    /// The always-valid interval of the difference at `level`. The one-sided test's is open on the side
    /// that is no harm: [bound, 1] for a lower-is-better rate, [−1, bound] otherwise.
    public var interval: [Double]
    /// The level the interval was computed at: alpha / (metrics × treatment arms).
    public var level: Double
    /// The mSPRT mixing variance τ².
    public var mixingVariance: Double
    /// The test that decided (`one_sided_msprt`) and the `minimum_harm` its mixing is tuned to; nil in
    /// stops written before the test was named (the two-sided mSPRT).
    public var test: String?
    public var minimumHarm: Double?
    /// A bandit's figures are period-stratified: `difference` and `interval` are, and these
    /// are the two sides' stratified rates; the counts above stay the pooled ones. nil otherwise.
    public var stratified: Stratified?

    /// A bandit's stratified rates, over the periods where both sides have mature users.
    public struct Stratified: Sendable, Equatable {
        public var controlRate: Double
        public var armRate: Double
        public var periods: Int
        public init(controlRate: Double, armRate: Double, periods: Int) {
            self.controlRate = controlRate
            self.armRate = armRate
            self.periods = periods
        }
    }

    public init(controlUsers: Int, controlCount: Int, armUsers: Int, armCount: Int, difference: Double,
                interval: [Double], level: Double, mixingVariance: Double, test: String? = nil, minimumHarm: Double? = nil,
                stratified: Stratified? = nil) {
        self.controlUsers = controlUsers
        self.controlCount = controlCount
        self.armUsers = armUsers
        self.armCount = armCount
        self.difference = difference
        self.interval = interval
        self.level = level
        self.mixingVariance = mixingVariance
        self.test = test
        self.minimumHarm = minimumHarm
        self.stratified = stratified
    }

    /// The one-sided test's bound in words, for every place that shows a stop: "the one-sided always-valid
    /// test (one_sided_msprt, tuned to a 20% minimum harm) bounds the difference at or above +14.1 points";
    /// a stop written by the two-sided test: "always-valid interval of the difference [+14.1, +27.0] points".
    public var boundWords: String {
        func points(_ x: Double) -> String { String(format: "%+.1f", x * 100) }
        let lo = interval.first ?? 0, hi = interval.last ?? 0
        guard let test else { return "always-valid interval of the difference [\(points(lo)), \(points(hi))] points" }
        let tuning = minimumHarm.map { ", tuned to a \(String(format: "%g", $0 * 100))% minimum harm" } ?? ""
        let bound = hi >= 1 ? "at or above \(points(lo))" : "at or below \(points(hi))"
        return "the one-sided always-valid test (\(test)\(tuning)) bounds the difference \(bound) points"
    }

    /// The pooled rates of the counts.
    public var controlRate: Double { controlUsers > 0 ? Double(controlCount) / Double(controlUsers) : 0 }
    public var armRate: Double { armUsers > 0 ? Double(armCount) / Double(armUsers) : 0 }
    /// The rates the decision compared: a bandit's stratified ones, else the pooled ones. What words show.
    public var comparedControlRate: Double { stratified?.controlRate ?? controlRate }
    public var comparedArmRate: Double { stratified?.armRate ?? armRate }

    /// As JSON: the report's `figures` and the store's column.
    public var json: JSONValue {
        .object([
            ("control_users", .number(Double(controlUsers))), ("control_count", .number(Double(controlCount))),
            ("control_rate", .number(controlRate)),
            ("arm_users", .number(Double(armUsers))), ("arm_count", .number(Double(armCount))), ("arm_rate", .number(armRate)),
            ("difference", .number(difference)), ("interval", .array(interval.map { .number($0) })),
            ("level", .number(level)), ("mixing_variance", .number(mixingVariance)),
        ] + (test.map { [("test", JSONValue.string($0))] } ?? []) + (minimumHarm.map { [("minimum_harm", JSONValue.number($0))] } ?? [])
          + (stratified.map { s in
            [("period_stratified", JSONValue.object([("control_rate", .number(s.controlRate)), ("arm_rate", .number(s.armRate)),
                                                      ("periods", .number(Double(s.periods)))]))]
        } ?? []))
    }

    /// Reads `json`'s text back; nil when it is not that shape.
    public init?(jsonText: String) {
        guard let node = try? JSONReader.parse(Array(jsonText.utf8)), case .object(let members) = node.value else { return nil }
        var values: [String: JSONValue] = [:]
        for (k, v) in members { values[k] = v }
        func number(_ key: String) -> Double? { if case .number(let n)? = values[key] { n } else { nil } }
        guard let cu = number("control_users"), let cc = number("control_count"), let au = number("arm_users"),
              let ac = number("arm_count"), let d = number("difference"), let level = number("level"),
              let tau2 = number("mixing_variance"), case .array(let items)? = values["interval"] else { return nil }
        let interval = items.compactMap { item -> Double? in if case .number(let n) = item { n } else { nil } }
        var test: String?
        if case .string(let name)? = values["test"] { test = name }
        var stratified: Stratified?
        if case .object(let inner)? = values["period_stratified"] {
            var s: [String: Double] = [:]
            for case (let k, .number(let n)) in inner { s[k] = n }
            if let c = s["control_rate"], let a = s["arm_rate"], let k = s["periods"] { stratified = Stratified(controlRate: c, armRate: a, periods: Int(k)) }
        }
        self.init(controlUsers: Int(cu), controlCount: Int(cc), armUsers: Int(au), armCount: Int(ac), difference: d,
                  interval: interval, level: level, mixingVariance: tau2, test: test, minimumHarm: number("minimum_harm"), stratified: stratified)
    }
}
