import ExperimentDefinitions
import Statistics

/// Results by segment (docs/Segments.md): each `--by` dimension's values compared as the report compares
/// its arms, small values pooled into `other`, Holm across cells, Cochran's Q per (metric, variant).
enum SegmentAnalysis {
    /// The metrics split by segment: primary, guardrails and secondary, each once.
    static func metrics(_ experiment: Experiment) -> [Metric] {
        var out: [Metric] = []
        for m in [experiment.metrics.primary] + experiment.metrics.guardrails + experiment.metrics.secondary where !out.contains(m) { out.append(m) }
        return out
    }

    static func analyze(_ acc: ReportAccumulator, caps: [Double?], alpha: Double) throws -> [SegmentDimension] {
        let metrics = Self.metrics(acc.experiment)
        let slots = metrics.compactMap { acc.slot($0) }
        return try acc.splits.indices.filter { $0 != acc.strataSplit && $0 != acc.periodSplit }.map { s in
            try dimension(acc.splits[s], metrics: metrics, slots: slots, acc: acc, caps: caps, alpha: alpha)
        }
    }

    /// A `heterogeneity` health warning per (dimension, metric, variant) whose effect differs.
    static func health(_ dimensions: [SegmentDimension]) -> [HealthCheck] {
        dimensions.flatMap { d in
            d.differenceSentences.map { HealthCheck(level: .warning, code: "heterogeneity", message: $0 + " " + SegmentDimension.exploratoryNote) }
        }
    }

    /// A value has users enough to stand alone when every arm has `minUsers` users.
    static func enoughUsers(_ tallies: [VariantTally], minUsers: Int) -> Bool {
        tallies.allSatisfy { $0.users >= minUsers }
    }

    /// A value with users enough stands alone for one metric when, for a rate, every arm has at least
    /// 10 users with and 10 without the event among its denominator (revenue has no such count).
    static func enoughEvents(_ tallies: [VariantTally], slot: Int, metric: Metric) -> Bool {
        if metric.isRevenue { return true }
        return tallies.allSatisfy { t in
            let k = t.counts[slot], n = t.denominators[slot]
            return k >= 10 && n - k >= 10
        }
    }

    /// The pooling, per metric: a value with too few users in an arm is pooled into `other` for
    /// every metric; a value with users enough but too few events (or non-events) of a rate in an arm
    /// is pooled into `other` for that rate only, so a rare guardrail does not take every value's
    /// other metrics with it. Each metric's comparisons are over the cells standing alone for it plus
    /// its `other` (the values pooled for it); metrics with the same pool share one `other` cell, so
    /// a dimension may have several `other` cells, each with the users and values behind its own
    /// comparisons, and every (value, metric, variant) is in exactly one cell.
    static func dimension(_ split: SplitTally, metrics: [Metric], slots: [Int], acc: ReportAccumulator,
                          caps: [Double?], alpha: Double) throws -> SegmentDimension {
        let minUsers = acc.options.minSegmentUsers
        // Values by users, most first (ties by name), `(none)` after them.
        let order = split.keys.indices.sorted { a, b in
            let na = split.keys[a] == Segments.noneValue, nb = split.keys[b] == Segments.noneValue
            if na != nb { return nb }
            let ua = split.cells[a].reduce(0) { $0 + $1.users }, ub = split.cells[b].reduce(0) { $0 + $1.users }
            return ua != ub ? ua > ub : split.keys[a] < split.keys[b]
        }
        // alone[i][mi]: value `order[i]` stands alone for metric mi.
        let alone: [[Bool]] = order.map { i in
            let tallies = split.cells[i]
            let users = enoughUsers(tallies, minUsers: minUsers)
            return zip(slots, metrics).map { slot, m in users && enoughEvents(tallies, slot: slot, metric: m) }
        }
        // A value's own cell compares the metrics it stands alone for.
        var cells: [(value: String, tallies: [VariantTally], pooled: [String], metrics: [Int])] = []
        for (k, i) in order.enumerated() {
            let own = metrics.indices.filter { alone[k][$0] }
            if !own.isEmpty { cells.append((split.keys[i], split.cells[i], [], own)) }
        }
        // One `other` per distinct pool, serving the metrics whose pool it is (in metric order).
        var pools: [(values: [Int], metrics: [Int])] = []
        for mi in metrics.indices {
            let pool = order.indices.filter { !alone[$0][mi] }
            guard !pool.isEmpty else { continue }
            if let p = pools.firstIndex(where: { $0.values == pool }) { pools[p].metrics.append(mi) } else { pools.append((pool, [mi])) }
        }
        for pool in pools {
            let tallies = pool.values.dropFirst().reduce(split.cells[order[pool.values[0]]]) { sum, k in
                zip(sum, split.cells[order[k]]).map { $0.merged(with: $1) }
            }
            cells.append((Segments.otherValue, tallies, pool.values.map { split.keys[order[$0]] }, pool.metrics))
        }

        let variants = acc.experiment.variants
        var results = try cells.map { cell in
            SegmentDimension.Cell(
                value: cell.value, users: cell.tallies.reduce(0) { $0 + $1.users }, usersByVariant: cell.tallies.map(\.users),
                pooledValues: cell.pooled,
                comparisons: try compare(cell.tallies, metrics: cell.metrics.map { metrics[$0] }, slots: cell.metrics.map { slots[$0] },
                                         acc: acc, caps: caps, alpha: alpha))
        }
        var heterogeneity: [SegmentDimension.Heterogeneity] = []
        for (mi, m) in metrics.enumerated() {
            let serving = cells.indices.filter { cells[$0].metrics.contains(mi) }
            for (vi, variant) in variants.enumerated().dropFirst() {
                // This (metric, variant)'s comparison in each cell that compares the metric.
                let at: [(cell: Int, index: Int)] = serving.compactMap { c in
                    results[c].comparisons.firstIndex { $0.metric == m && $0.variant == variant.key }.map { (c, $0) }
                }
                // Holm across the cells of this (metric, variant).
                var family = at.map { results[$0.cell].comparisons[$0.index] }
                try ComparisonResult.adjustHolm(&family)
                for (c, adjusted) in zip(at, family) { results[c.cell].comparisons[c.index] = adjusted }
                let estimates = serving.compactMap { c in
                    differenceAndVariance(cells[c].tallies, control: 0, variant: vi, slot: slots[mi], metric: m, cap: caps[slots[mi]])
                }
                if let q = CochranQ(estimates: estimates) {
                    heterogeneity.append(.init(metric: m, variant: variant.key, pValue: q.pValue, statistic: q.statistic, cells: q.degreesOfFreedom + 1))
                } else {
                    let reason = serving.count < 2
                        ? "fewer than 2 cells: every value of \(split.name) was pooled into one for this metric"
                        : "fewer than 2 cells have a difference with a spread to weigh"
                    heterogeneity.append(.init(metric: m, variant: variant.key, pValue: nil, statistic: nil, cells: estimates.count, nullReason: reason))
                }
            }
        }
        for c in results.indices {
            for i in results[c].comparisons.indices {
                results[c].comparisons[i].reading = VerdictReading.read(results[c].comparisons[i], alpha: alpha, sequential: false)
            }
        }
        return SegmentDimension(dimension: split.name, minUsers: minUsers, cells: results, heterogeneity: heterogeneity)
    }

    /// Each treatment against the control on `metrics`, as the report compares its arms, without Holm.
    static func compare(_ tallies: [VariantTally], metrics: [Metric], slots: [Int], acc: ReportAccumulator,
                        caps: [Double?], alpha: Double) throws -> [ComparisonResult] {
        var out: [ComparisonResult] = []
        for (m, slot) in zip(metrics, slots) {
            for t in tallies.dropFirst() {
                var c: ComparisonResult
                if m.isRevenue {
                    let control = try RevenueCapping.summary(values: tallies[0].values[slot], users: tallies[0].denominators[slot], cap: caps[slot])
                    let variant = try RevenueCapping.summary(values: t.values[slot], users: t.denominators[slot], cap: caps[slot])
                    c = try ReportAnalyzer.compareRevenue(m, control: control, variant: variant, key: t.key, cap: caps[slot], alpha: alpha)
                } else {
                    c = try ReportAnalyzer.compareRates(m, slot: slot, tallies[0], t, alpha: alpha, experiment: acc.experiment)
                }
                c.pValueAdjusted = nil
                if c.pValue == nil { c.nullReasons["p_value_adjusted"] = c.nullReasons["p_value"] }
                out.append(c)
            }
        }
        return out
    }

    /// The absolute difference of `variant` and `control` in `slot` and its variance (unpooled, as
    /// the Wald and Welch intervals use); nil when an arm is too small to have one.
    static func differenceAndVariance(_ tallies: [VariantTally], control: Int, variant: Int, slot: Int, metric: Metric,
                                      cap: Double?) -> (estimate: Double, variance: Double)? {
        func moments(_ t: VariantTally) -> (mean: Double, varianceOfMean: Double)? {
            let n = t.denominators[slot]
            if metric.isRevenue {
                guard n >= 2, let s = try? RevenueCapping.summary(values: t.values[slot], users: n, cap: cap),
                      let mean = try? s.mean(), let variance = try? s.variance() else { return nil }
                return (mean, variance / Double(n))
            }
            guard n > 0 else { return nil }
            let p = Double(t.counts[slot]) / Double(n)
            return (p, p * (1 - p) / Double(n))
        }
        guard let c = moments(tallies[control]), let v = moments(tallies[variant]) else { return nil }
        return (v.mean - c.mean, v.varianceOfMean + c.varianceOfMean)
    }
}

extension VariantTally {
    /// Two cells' counts of one variant as one (what `other` and pooled strata need: users, metric
    /// counts, denominators and revenue values).
    func merged(with other: VariantTally) -> VariantTally {
        var out = self
        out.users += other.users
        out.absorbCounts(of: other)
        return out
    }
}
