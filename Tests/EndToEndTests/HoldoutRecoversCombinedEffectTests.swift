import Foundation
import TestSupport
import Testing

/// A global holdout's report measures the combined effect of the experiments it keeps its users out
/// of: simulate through the real binary, where every experiment has a known true effect, and
/// the holdout's interval covers their user-weighted combination, not their sum.
///
/// Two experiments share the `paywall` namespace: `exp-a` takes [0, 0.3) (control and a treatment
/// that lifts trial starts 0.35 → 0.50), `exp-b` takes [0.3, 0.8) (a control of weight 2, `up` at
/// 0.45 and `down` at 0.30); [0.8, 1) sees no experiment. A user the holdout holds out sees the
/// control's paywall of the experiment that would have taken it (as the assigner does), so
/// `general − holdout` = Σ over experiments and treatment arms of (the arm's users / the general
/// arm's users) × (the arm's rate − the control's): about 0.3 × ½ × 0.15 + 0.5 × (¼ × 0.10 − ¼ × 0.05)
/// ≈ 0.029 on trial starts, where adding up each experiment's effect would say 0.0875.
@Suite struct HoldoutRecoversCombinedEffectTests {
    static let paywall = #"{ "offering": "chorus_plus", "trial_days": 3, "discount_framing": "none", "copy": { "strategy": "static", "text": "Hear every bird." } }"#

    static let files: [String: String] = [
        "global-holdout.json": """
            { "id": "global-holdout", "name": "Global holdout", "kind": "holdout", "fraction": 0.2, "status": "running",
              "start": "2026-11-01T00:00:00Z", "metrics": { "primary": "trial_start_rate", "secondary": ["paid_conversion"] } }
            """,
        "exp-a.json": """
            { "id": "exp-a", "name": "A", "status": "running", "start": "2026-11-01T00:00:00Z",
              "namespace": { "id": "paywall", "range": [0.0, 0.3] },
              "variants": [ { "key": "control", "paywall": \(paywall) }, { "key": "treat", "paywall": \(paywall) } ] }
            """,
        "exp-b.json": """
            { "id": "exp-b", "name": "B", "status": "running", "start": "2026-11-01T00:00:00Z",
              "namespace": { "id": "paywall", "range": [0.3, 0.8] },
              "variants": [ { "key": "control", "weight": 2, "paywall": \(paywall) }, { "key": "up", "paywall": \(paywall) },
                            { "key": "down", "paywall": \(paywall) } ] }
            """,
    ]

    /// True trial start rates per arm; everything else is the simulator's default.
    static let trialStart: [String: [String: Double]] = [
        "exp-a": ["control": 0.35, "treat": 0.50],
        "exp-b": ["control": 0.35, "up": 0.45, "down": 0.30],
    ]

    /// A trial starter pays with probability (1 − day0_cancel)(1 − later_cancel)·convert = 0.75 · 0.85 · 0.9
    /// (default rates, a 3-day trial); a non-starter buys directly with probability 0.01. So each point of
    /// trial starts is worth 0.57375 − 0.01 points of paid conversion.
    static let paidPerTrialStart = 0.75 * 0.85 * 0.9 - 0.01

    /// `  EXPERIMENT: key n, key n` lines of `abctl simulate`'s summary.
    static func exposed(_ summary: String) -> [String: [String: Int]] {
        var out: [String: [String: Int]] = [:]
        for line in summary.split(separator: "\n") where line.hasPrefix("  ") {
            let parts = line.trimmingCharacters(in: .whitespaces).split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else { continue }
            for arm in parts[1].split(separator: ",") {
                let words = arm.split(separator: " ")
                if words.count == 2, let n = Int(words[1]) { out[String(parts[0]), default: [:]][String(words[0])] = n }
            }
        }
        return out
    }

    @Test func theHoldoutsIntervalCoversTheUserWeightedCombinedEffect() async throws {
        let folder = TemporaryFolder()
        let experiments = folder.path + "/Experiments"
        try FileManager.default.createDirectory(atPath: experiments, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Abctl.packageRoot + "/Experiments/products.json", toPath: experiments + "/products.json")
        for (name, text) in Self.files { try text.write(toFile: experiments + "/" + name, atomically: true, encoding: .utf8) }
        let arms = Self.trialStart.map { e, rates in
            "\"\(e)\": {" + rates.map { "\"\($0.key)\": {\"trial_start\": \($0.value)}" }.joined(separator: ", ") + "}"
        }.joined(separator: ", ")
        let truth = folder.write("truth.json", #"{"default": {"trial_start": 0.35}, "experiments": {\#(arms)}}"#)
        let db = folder.path + "/holdout.sqlite"

        let sim = try await Abctl.run(["simulate", "--users", "40000", "--seed", "26", "--experiments", experiments, "--db", db, "--truth", truth])
        #expect(sim.status == 0, "\(sim.stderr)")
        let exposed = Self.exposed(sim.stdout)
        let general = try #require(exposed["global-holdout"]?["general"]), held = try #require(exposed["global-holdout"]?["holdout"])
        #expect(abs(Double(held) / Double(held + general) - 0.2) < 0.01, "\(exposed)")

        // The truth, weighted by the users each experiment's arms reached among the general users.
        var combined = 0.0, summed = 0.0
        for (e, rates) in Self.trialStart {
            let users = try #require(exposed[e])
            let control = rates["control"]!
            for (arm, p) in rates where arm != "control" {
                combined += Double(users[arm] ?? 0) / Double(general) * (p - control)
            }
            // What adding up each experiment's own (user-weighted) effect would claim.
            let total = Double(users.values.reduce(0, +))
            summed += rates.filter { $0.key != "control" }.reduce(0) { $0 + Double(users[$1.key] ?? 0) / total * ($1.value - control) }
        }
        #expect(combined > 0.02 && combined < 0.04 && summed > 0.08, "combined \(combined), summed \(summed)")

        let r = try await Abctl.run(["report", "global-holdout", "--db", db, "--experiments", experiments, "--format", "json"],
                                    environment: ["ABCTL_NOW": "2026-11-26T00:00:00Z"])
        #expect(r.status == 0, "\(r.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let comparisons = try #require(report["comparisons"] as? [[String: Any]])
        for (metric, truth) in [("trial_start_rate", combined), ("paid_conversion", combined * Self.paidPerTrialStart)] {
            let c = try #require(comparisons.first { $0["metric"] as? String == metric && $0["variant"] as? String == "general" }, "\(metric)")
            let ci = try #require(c["absolute_ci"] as? [Double], "\(metric)")
            #expect(ci[0] < truth && truth < ci[1], "\(metric): true combined effect \(truth), interval \(ci)")
            #expect(ci[0] > 0, "\(metric): the experiments' combined lift is found: \(ci)")
            #expect(ci[1] < summed * (metric == "trial_start_rate" ? 1 : Self.paidPerTrialStart),
                    "\(metric): not the sum of the experiments' effects (\(summed)): \(ci)")
        }
    }
}
