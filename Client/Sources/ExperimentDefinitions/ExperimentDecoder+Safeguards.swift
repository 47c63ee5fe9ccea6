import Foundation

/// `rollout` and `safeguards`.
extension ExperimentDecoder {
    func decodeRollout(_ node: JSONNode, start: Date?, hasStart: Bool) -> Rollout? {
        guard let r = ObjectReader(node, what: "'rollout'", allowed: ["stages"], required: ["stages"], sink: sink),
              let items = r.array("stages") else { return nil }
        if !hasStart {
            sink.error("rollout_without_start", at: node.position, "a rollout needs the experiment's 'start'",
                       hint: "stages are counted from start; add \"start\": \"2026-12-01T00:00:00Z\"")
        }
        if items.isEmpty {
            sink.error("empty_value", at: r.position("stages"), "rollout 'stages' is empty", hint: "list at least one stage, e.g. [{\"share\": 0.05, \"hours\": 24}, {\"share\": 1.0}]")
            return nil
        }
        var stages: [Rollout.Stage] = []
        var valid = true
        for (n, item) in items.enumerated() {
            let isLast = n == items.count - 1
            guard let sr = ObjectReader(item, what: "a rollout stage", allowed: ["share", "hours"], required: isLast ? ["share"] : ["share", "hours"], sink: sink) else {
                valid = false
                continue
            }
            var stage = Rollout.Stage(share: 1)
            if let share = sr.number("share") {
                if share > 0 && share <= 1 { stage.share = share } else {
                    sink.error("out_of_range", at: sr.position("share"), "rollout share \(Self.format(share)) is outside (0, 1]", hint: "a fraction of coverage, e.g. 0.05 for 5%")
                    valid = false
                }
                if let previous = stages.last, share < previous.share {
                    sink.error("rollout_shrinks", at: sr.position("share"), "rollout share \(Self.format(share)) is below the previous stage's \(Self.format(previous.share))",
                               hint: "shares only grow, so users once in stay in")
                    valid = false
                }
            } else if sr.has("share") { valid = false }
            if let hours = sr.number("hours") {
                if isLast {
                    sink.error("last_stage_hours", at: sr.position("hours"), "the last rollout stage has 'hours', but it lasts until the experiment ends",
                               hint: "remove 'hours' from the last stage")
                    valid = false
                } else if hours > 0 && hours.isFinite {
                    stage.hours = hours
                } else {
                    sink.error("out_of_range", at: sr.position("hours"), "rollout stage hours \(Self.format(hours)) must be positive", hint: "e.g. 24 for one day")
                    valid = false
                }
            } else if !isLast { valid = false }
            stages.append(stage)
        }
        return valid ? Rollout(stages: stages) : nil
    }

    /// `guardrailsComplete`: false when a guardrail was refused (its own error said why), so an
    /// empty list of watched metrics is not reported again as a second problem.
    func decodeSafeguards(_ node: JSONNode, guardrails: [Metric], guardrailsComplete: Bool = true) -> SafeguardsConfig? {
        guard let r = ObjectReader(node, what: "'safeguards'", allowed: ["metrics", "action", "alpha", "min_users", "check_minutes", "minimum_harm"], sink: sink) else { return nil }
        var config = SafeguardsConfig(metrics: guardrails.filter { $0.horizonDays == nil && !$0.isRevenue })
        let errorsBefore = sink.errorCount
        let listed = r.array("metrics")
        if let items = listed {
            var metrics: [Metric] = []
            for item in items {
                guard case .string(let name) = item.kind else {
                    sink.error("wrong_type", at: item.position, "safeguards metrics must be metric names, not \(item.typeName)")
                    continue
                }
                switch Metric.parse(name) {
                case .success(let m) where m.horizonDays != nil:
                    sink.error("safeguard_metric", at: item.position, "safeguard metric '\(name)' has a horizon; safeguards wait for each user's own maturity",
                               hint: "write '\(m.base.name)'")
                case .success(let m) where m.isRevenue:
                    sink.error("safeguard_metric", at: item.position, "safeguards watch rates, and '\(name)' is revenue",
                               hint: "watch refund_rate or day0_cancel_rate instead")
                case .success(let m):
                    if metrics.contains(m) {
                        sink.error("duplicate_value", at: item.position, "safeguard metric '\(name)' is listed twice")
                    } else {
                        metrics.append(m)
                    }
                case .failure:
                    let names = MetricTable.all.filter { !$0.isRevenue }.map(\.name)
                    sink.error("unknown_metric", at: item.position, "unknown metric '\(name)'",
                               hint: Spelling.closest(to: name, in: names).map { "did you mean '\($0)'?" } ?? "use one of: \(names.joined(separator: ", "))")
                }
            }
            config.metrics = metrics
        }
        // A refused metric already has its error; "watch no metric" would be the same problem again.
        let cascades = r.has("metrics") ? sink.errorCount > errorsBefore || listed == nil : !guardrailsComplete
        if config.metrics.isEmpty && !cascades {
            sink.error("empty_value", at: r.has("metrics") ? r.position("metrics") : node.position, "safeguards watch no metric",
                       hint: "list rates to watch, e.g. \"metrics\": [\"day0_cancel_rate\", \"refund_rate\"]")
        }
        if let text = r.string("action") {
            if let action = SafeguardsConfig.Action(rawValue: text) { config.action = action } else {
                let names = SafeguardsConfig.Action.allCases.map(\.rawValue)
                sink.error("unknown_safeguard_action", at: r.position("action"), "unknown safeguards action '\(text)'",
                           hint: Spelling.closest(to: text, in: names).map { "did you mean '\($0)'?" } ?? "use one of: \(names.joined(separator: ", "))")
            }
        }
        if let alpha = r.number("alpha") {
            if alpha > 0 && alpha < 0.5 { config.alpha = alpha } else {
                sink.error("out_of_range", at: r.position("alpha"), "safeguards alpha \(Self.format(alpha)) must be between 0 and 0.5", hint: "the usual level is 0.05")
            }
        }
        if let minUsers = r.integer("min_users") {
            if minUsers >= 1 { config.minUsers = minUsers } else {
                sink.error("out_of_range", at: r.position("min_users"), "safeguards min_users \(minUsers) must be at least 1", hint: "the default is 300")
            }
        }
        if let minutes = r.number("check_minutes") {
            if minutes > 0 && minutes.isFinite { config.checkMinutes = minutes } else {
                sink.error("out_of_range", at: r.position("check_minutes"), "safeguards check_minutes \(Self.format(minutes)) must be positive", hint: "the default is 15")
            }
        }
        if let harm = r.number("minimum_harm") {
            if harm > 0 && harm <= 10 { config.minimumHarm = harm } else {
                sink.error("out_of_range", at: r.position("minimum_harm"), "safeguards minimum_harm \(Self.format(harm)) must be a positive relative change",
                           hint: "the smallest harm worth stopping for, e.g. 0.2 for a rate 20% worse than the control's")
            }
        }
        return config
    }
}
