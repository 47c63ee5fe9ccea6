import ExperimentDefinitions
import Foundation

/// One allocation period of a bandit (docs/Bandits.md): the weights in force from `from` until the
/// next period, a durable record written once by whichever node held the lease at the boundary.
public struct AllocationPeriod: Sendable, Equatable {
    public var experiment: String
    /// 0 for the period that begins at the experiment's `start`, then one per `update_hours`.
    public var index: Int
    /// When the period begins (its boundary): what `allocation_period` carries.
    public var from: Timestamp
    /// Per variant, in the file's order: the weight in force (they sum to 1).
    public var weights: [(variant: String, weight: Double)]
    /// What the weights were computed from: per variant, mature users and their rewards.
    public var basis: [(variant: String, users: Int, rewards: Int)]
    /// `learned` (chance of being best, floored), `burn_in` (the file's weights hold: an arm has
    /// fewer than `burn_in_users` mature users), `first` (period 0: the file's weights).
    public var rule: String
    /// When the record was written.
    public var computedAt: Timestamp

    public init(experiment: String, index: Int, from: Timestamp, weights: [(variant: String, weight: Double)],
                basis: [(variant: String, users: Int, rewards: Int)] = [], rule: String, computedAt: Timestamp) {
        self.experiment = experiment
        self.index = index
        self.from = from
        self.weights = weights
        self.basis = basis
        self.rule = rule
        self.computedAt = computedAt
    }

    public static func == (a: AllocationPeriod, b: AllocationPeriod) -> Bool {
        a.experiment == b.experiment && a.index == b.index && a.from == b.from && a.rule == b.rule && a.computedAt == b.computedAt
            && a.weights.map(\.variant) == b.weights.map(\.variant) && a.weights.map(\.weight) == b.weights.map(\.weight)
            && a.basis.map(\.variant) == b.basis.map(\.variant) && a.basis.map(\.users) == b.basis.map(\.users)
            && a.basis.map(\.rewards) == b.basis.map(\.rewards)
    }

    public func weight(of variant: String) -> Double? { weights.first { $0.variant == variant }?.weight }

    /// The weights and basis as one JSON text: the stores' column.
    public var figuresJSON: String {
        JSONValue.object([
            ("weights", .object(weights.map { ($0.variant, .number($0.weight)) })),
            ("basis", .object(basis.map { ($0.variant, .object([("users", .number(Double($0.users))), ("rewards", .number(Double($0.rewards)))])) })),
        ]).serialized()
    }

    /// Reads `figuresJSON` back; nil when it is not that shape.
    public init?(experiment: String, index: Int, from: Timestamp, rule: String, computedAt: Timestamp, figuresJSON: String) {
        guard let node = try? JSONReader.parse(Array(figuresJSON.utf8)), case .object(let members) = node.value,
              case .object(let w)? = members.first(where: { $0.0 == "weights" })?.1 else { return nil }
        var weights: [(variant: String, weight: Double)] = []
        for (k, v) in w { guard case .number(let n) = v else { return nil }; weights.append((k, n)) }
        var basis: [(variant: String, users: Int, rewards: Int)] = []
        if case .object(let b)? = members.first(where: { $0.0 == "basis" })?.1 {
            for (k, v) in b {
                guard case .object(let f) = v, case .number(let u)? = f.first(where: { $0.0 == "users" })?.1,
                      case .number(let r)? = f.first(where: { $0.0 == "rewards" })?.1 else { return nil }
                basis.append((k, Int(u), Int(r)))
            }
        }
        self.init(experiment: experiment, index: index, from: from, weights: weights, basis: basis, rule: rule, computedAt: computedAt)
    }

    /// As JSON: what `abctl allocation show` and `GET /v1/experiments` carry.
    public var json: JSONValue {
        .object([("experiment", .string(experiment)), ("period", .number(Double(index))), ("from", .string(from.rfc3339)),
                 ("weights", .object(weights.map { ($0.variant, .number($0.weight)) })), ("rule", .string(rule)),
                 ("basis", .object(basis.map { ($0.variant, .object([("users", .number(Double($0.users))), ("rewards", .number(Double($0.rewards)))])) })),
                 ("computed_at", .string(computedAt.rfc3339))])
    }
}
