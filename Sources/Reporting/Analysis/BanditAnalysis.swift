import Events
import ExperimentDefinitions
import Foundation
import Statistics

/// A bandit's report (docs/Bandits.md): arms compared by period-stratified estimates (never pooled,
/// so a drift in who arrives when cannot pose as an effect), one sample ratio check over the period ×
/// arm cells against each period's weights, `chance_best` from the stratified rates, and the verdict
/// that names the best arm once it is both likely best and significantly above the control.
enum BanditAnalysis {
    /// A bandit's comparisons, every one period-stratified, then Holm across treatments again;
    /// unchanged for a fixed split.
    static func stratifying(_ comparisons: [ComparisonResult], acc: ReportAccumulator, caps: [Double?], alpha: Double) throws -> [ComparisonResult] {
        guard let s = acc.periodSplit else { return comparisons }
        let split = acc.splits[s]
        let keys = acc.experiment.variants.map(\.key)
        var replaced: [Int: ComparisonResult] = [:]
        for (i, c) in comparisons.enumerated() {
            // Two arms with no events have nothing to stratify: their comparison stays null with its reason.
            guard let slot = acc.slot(c.metric), let v = keys.firstIndex(of: c.variant), c.absoluteDiff != nil, c.pValue != nil else { continue }
            replaced[i] = try PostStratifiedComparisons.adjusted(c, split: split, variant: v, slot: slot, cap: caps[slot], alpha: alpha,
                                                                 sequential: acc.experiment.metrics.sequential, periods: true)
        }
        return try ComparisonResult.replacing(replaced, in: comparisons)
    }

    /// The periods seen in the data or recorded by the store, up to the as-of time, with the
    /// weights in force in each (a period with no record keeps the last recorded weights, else the file's).
    static func periods(_ acc: ReportAccumulator) -> [AllocationResult.Period] {
        guard let a = acc.experiment.allocation, let start = acc.experiment.start, let s = acc.periodSplit else { return [] }
        let e = acc.experiment
        let keys = e.variants.map(\.key)
        let split = acc.splits[s]
        var users: [Int: [Int]] = [:]
        for (c, key) in split.keys.enumerated() { if let k = Int(key) { users[k] = split.cells[c].map(\.users) } }
        let records = acc.inputs.allocationPeriods.filter { $0.experiment == e.id && $0.weights.map(\.variant) == keys && $0.from.date < acc.inputs.asOf }
        let last = max(users.keys.max() ?? 0, records.map(\.index).max() ?? 0, a.periodIndex(at: acc.inputs.asOf, start: start))
        var out: [AllocationResult.Period] = []
        var inForce = e.normalizedWeights, rule = "file"
        for k in 0...last {
            if let r = records.first(where: { $0.index == k }) { inForce = r.weights.map(\.weight); rule = r.rule } else if k > 0 && rule != "file" { rule = "carried" }
            let from = a.periodStart(k, start: start)
            if from >= acc.inputs.asOf && users[k] == nil { break }
            let next = a.periodStart(k + 1, start: start)
            out.append(.init(index: k, from: from, to: next < acc.inputs.asOf ? next : nil, weights: inForce,
                             users: users[k] ?? Array(repeating: 0, count: keys.count), rule: rule))
        }
        return out
    }

    /// One chi-square over the period × arm cells against each period's weights.
    static func sampleRatio(_ periods: [AllocationResult.Period], variants: Int) -> SRMResult {
        let totals = (0..<variants).map { v in periods.reduce(0) { $0 + $1.users[v] } }
        let all = totals.reduce(0, +)
        // The expected shares overall: each period's weights, weighted by its users.
        let expected = (0..<variants).map { v in all > 0 ? periods.reduce(0.0) { $0 + $1.weights[v] / max(1e-300, $1.weights.reduce(0, +)) * Double($1.users.reduce(0, +)) } / Double(all) : 0 }
        guard let r = StratifiedRates.sampleRatio(users: periods.map(\.users), weights: periods.map(\.weights)) else {
            return SRMResult(pValue: nil, flagged: false, expectedShares: expected, counts: totals, nullReason: "no allocation period has users in two arms yet")
        }
        return SRMResult(pValue: r.pValue, statistic: r.statistic, flagged: r.pValue < SampleRatioMismatch.defaultThreshold, expectedShares: expected, counts: totals)
    }

    /// `chance_best` on the primary metric's mature form, from the period-stratified rates.
    static func chanceBest(_ acc: ReportAccumulator, metric: Metric) -> (values: [Double]?, reason: String?) {
        guard let s = acc.periodSplit, let slot = acc.slot(metric) else { return (nil, "the primary metric is not in the report") }
        guard !metric.isRevenue else { return (nil, "chance_best compares rates; the primary metric is revenue") }
        let split = acc.splits[s]
        let arms = acc.experiment.variants.count
        let cells = (0..<arms).map { v in split.cells.map { StratifiedRates.Cell(users: $0[v].denominators[slot], count: $0[v].counts[slot]) } }
        guard let chance = StratifiedRates.chanceBest(cells) else {
            return (nil, "no allocation period has mature users with varied outcomes in every arm yet")
        }
        return (metric.lowerIsBetter ? chanceBestLower(cells) : chance, nil)
    }

    /// For a lower-is-better rate the best arm has the lowest rate: mirror the rates.
    static func chanceBestLower(_ cells: [[StratifiedRates.Cell]]) -> [Double] {
        StratifiedRates.chanceBest(cells.map { $0.map { StratifiedRates.Cell(users: $0.users, count: $0.users - $0.count) } }) ?? []
    }

    /// A bandit's periods with `chance_best`, and its sample ratio check over them (which replaces the
    /// plain one); nil for a fixed split.
    static func allocation(_ acc: ReportAccumulator) -> (allocation: AllocationResult, srm: SRMResult)? {
        guard acc.experiment.isBandit else { return nil }
        let e = acc.experiment
        let periods = periods(acc)
        let metric = e.metrics.primary.matureForm(days: e.maturityDays)
        let chosen = acc.slot(metric) != nil ? metric : e.metrics.primary
        let (chance, reason) = chanceBest(acc, metric: chosen)
        return (AllocationResult(variants: e.variants.map(\.key), periods: periods, chanceBest: chance, chanceBestNullReason: reason, metric: chosen),
                sampleRatio(periods, variants: e.variants.count))
    }

    /// The verdict for a bandit: ship the best arm once its `chance_best` is at least 0.95 and
    /// its stratified comparison with the control on the primary has a Holm-adjusted p below
    /// `alpha`; otherwise keep running. A guardrail's stop stands: `rule`, the fixed-split verdict, is
    /// returned unchanged then, and for a fixed split.
    static func decision(_ rule: Decision, figures: ReportFigures) -> Decision {
        guard let allocation = figures.allocation, rule.verdict != .stop else { return rule }
        var decision = rule
        decision.winner = nil
        // Harm first, as in every verdict; an arm that hurts a guardrail is never shipped.
        let harms = DecisionRule.harms(figures)
        guard let chance = allocation.chanceBest, let best = chance.indices.max(by: { chance[$0] < chance[$1] }) else {
            decision.verdict = .keepRunning
            decision.reasons = harms.map { $0.words } + ["A bandit: no arm can be named yet (\(allocation.chanceBestNullReason ?? "no chance of being best yet"))."]
            return decision
        }
        let name = allocation.variants[best], p = chance[best]
        let comparison = figures.comparisons.first { $0.metric == allocation.metric && $0.variant == name }
        let adjusted = comparison?.pValueAdjusted
        let harmed = harms.contains { $0.variant == name }
        if best != 0, p >= 0.95, let adjusted, adjusted < figures.alpha, !harmed {
            decision.verdict = .ship
            decision.winner = name
            decision.reasons = harms.map { $0.words } + ["A bandit: the chance that “\(name)” is the best arm on \(allocation.metric.title.lowercased()) is \(Wording.share(p, digits: 1)), and its period-stratified comparison with the control has a Holm-adjusted \(Wording.pEquals(adjusted)), below \(figures.alpha)."]
        } else {
            decision.verdict = .keepRunning
            let why = best == 0 ? "the control is the likeliest best arm (\(Wording.share(p, digits: 1)))"
                : harmed ? "the likeliest best arm, “\(name)” (\(Wording.share(p, digits: 1))), hurts a guardrail (above), so it is not shipped"
                : p < 0.95 ? "the chance that the likeliest best arm, “\(name)”, is best is \(Wording.share(p, digits: 1)), under 95%"
                : "“\(name)” is likely best (\(Wording.share(p, digits: 1))), but its period-stratified comparison with the control is not significant (Holm-adjusted p \(adjusted.map { String(format: "%.4f", $0) } ?? "n/a"))"
            decision.reasons = harms.map { $0.words } + ["A bandit keeps running: \(why)."]
        }
        return decision
    }
}
