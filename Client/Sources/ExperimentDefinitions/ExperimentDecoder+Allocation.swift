import Foundation

/// `allocation`: a bandit's settings, and what a bandit needs of the rest of the file.
extension ExperimentDecoder {
    static let allocationKeys = ["type", "reward", "update_hours", "min_share", "burn_in_users"]

    /// `top` is the experiment's reader (for `sticky`, `start`, `rollout`); `arms` the number of variants.
    func decodeAllocation(_ node: JSONNode, top: ObjectReader, arms: Int, isHoldout: Bool) -> AllocationConfig? {
        guard let r = ObjectReader(node, what: "'allocation'", allowed: Self.allocationKeys, required: ["type", "reward"], sink: sink) else { return nil }
        var valid = true
        if isHoldout {
            sink.error("holdout_allocation", at: node.position, "a holdout has no 'allocation': its arms' shares are fixed by 'fraction'",
                       hint: "remove 'allocation'")
            valid = false
        }
        if let text = r.string("type"), AllocationConfig.Kind(rawValue: text) == nil {
            let names = AllocationConfig.Kind.allCases.map(\.rawValue)
            sink.error("unknown_allocation_type", at: r.position("type"), "unknown allocation type '\(text)'",
                       hint: Spelling.closest(to: text, in: names).map { "did you mean '\($0)'?" } ?? "use \"bandit\"")
            valid = false
        } else if !r.has("type") || r.string("type") == nil { valid = false }
        var reward: Metric? = nil
        if let name = r.string("reward") {
            switch Metric.parse(name) {
            case .success(let m) where AllocationConfig.isReward(m):
                reward = m
            case .success(let m):
                let why = m.definition.name == "paid_conversion" ? "'paid_conversion' keeps changing after the trial: give it a horizon"
                    : "a reward is a higher-is-better rate over exposed users, and '\(name)' is not"
                sink.error("bandit_reward", at: r.position("reward"), "bandit reward '\(name)' cannot be learned from: \(why)",
                           hint: "use trial_start_rate, trial_start_rate_dN or paid_conversion_dN, e.g. \"paid_conversion_d14\"")
            case .failure:
                let names = MetricTable.all.map(\.name)
                sink.error("unknown_metric", at: r.position("reward"), "unknown metric '\(name)'",
                           hint: Spelling.closest(to: name, in: names).map { "did you mean '\($0)'?" } ?? "use trial_start_rate or paid_conversion_dN")
            }
        }
        var config = AllocationConfig(reward: reward ?? Metric.named("trial_start_rate"))
        if let hours = r.number("update_hours") {
            if hours > 0 && hours.isFinite { config.updateHours = hours } else {
                sink.error("out_of_range", at: r.position("update_hours"), "allocation update_hours \(Self.format(hours)) must be positive", hint: "the default is 24")
                valid = false
            }
        }
        if let share = r.number("min_share") {
            let cap = arms >= 2 ? 1 / Double(arms) : 0.5
            if share >= 0 && share <= cap + 1e-12 { config.minShare = share } else {
                sink.error("out_of_range", at: r.position("min_share"),
                           "allocation min_share \(Self.format(share)) is outside [0, \(Self.format(cap))]: every running arm gets it, so it is at most 1 / \(max(arms, 2)) arms",
                           hint: "the default is 0.05")
                valid = false
            }
        } else if arms >= 2 && config.minShare > 1 / Double(arms) {
            config.minShare = 1 / Double(arms)
        }
        if let users = r.integer("burn_in_users") {
            if users >= 1 { config.burnInUsers = users } else {
                sink.error("out_of_range", at: r.position("burn_in_users"), "allocation burn_in_users \(users) must be at least 1", hint: "the default is 200")
                valid = false
            }
        }
        // What a bandit needs of the rest of the file.
        if top.bool("sticky") == false {
            sink.error("bandit_not_sticky", at: top.position("sticky"), "a bandit needs \"sticky\": true: its weights change, and users must keep their arm",
                       hint: "remove 'sticky' or set it to true")
            valid = false
        }
        if !top.has("start") || { if case .null? = top.node("start")?.kind { true } else { false } }() {
            sink.error("bandit_without_start", at: node.position, "a bandit needs the experiment's 'start': its periods are counted from it",
                       hint: "add \"start\": \"2026-12-01T00:00:00Z\"")
            valid = false
        }
        if top.has("rollout") {
            sink.error("bandit_with_rollout", at: top.position("rollout"), "a bandit has no 'rollout': it shifts users between arms itself",
                       hint: "remove 'rollout', or 'allocation' for a fixed split")
            valid = false
        }
        return valid && reward != nil ? config : nil
    }
}
