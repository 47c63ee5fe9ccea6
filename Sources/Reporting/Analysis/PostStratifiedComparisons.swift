import ExperimentDefinitions
import Statistics

/// Post-stratification (docs/Segments.md): with `metrics.adjust_for`, each comparison of the primary
/// and the guardrails (their `_dN` forms too) takes the post-stratified difference over the strata of
/// the attributes' combinations, and keeps the plain figures and the variance reduction beside it.
/// The verdict then reads the adjusted figures, since it reads the comparisons.
enum PostStratifiedComparisons {
    static let minimumStratumUsers = 50

    /// Whether `metric`'s comparisons are adjusted: the primary's and the guardrails', any horizon.
    static func adjusts(_ metric: Metric, _ experiment: Experiment) -> Bool {
        ([experiment.metrics.primary] + experiment.metrics.guardrails).contains { $0.base == metric.base }
    }

    /// The comparisons with those `adjusts` names post-stratified, then Holm again across treatments
    /// over the adjusted p-values; unchanged without `adjust_for`.
    static func adjusting(_ comparisons: [ComparisonResult], acc: ReportAccumulator, caps: [Double?], alpha: Double) throws -> [ComparisonResult] {
        guard let s = acc.strataSplit else { return comparisons }
        let split = acc.splits[s]
        let experiment = acc.experiment
        let keys = experiment.variants.map(\.key)
        var replaced: [Int: ComparisonResult] = [:]
        for (i, c) in comparisons.enumerated() where adjusts(c.metric, experiment) {
            guard let slot = acc.slot(c.metric), let v = keys.firstIndex(of: c.variant), c.absoluteDiff != nil, c.pValue != nil else { continue }
            replaced[i] = try adjusted(c, split: split, variant: v, slot: slot, cap: caps[slot], alpha: alpha,
                                       sequential: experiment.metrics.sequential)
        }
        return try ComparisonResult.replacing(replaced, in: comparisons)
    }

    /// `periods`: a bandit's allocation periods are the strata: never pooled; a period
    /// where either arm has too few users to compare (none; one for revenue) is left out.
    static func adjusted(_ c: ComparisonResult, split: SplitTally, variant v: Int, slot: Int, cap: Double?, alpha: Double,
                         sequential: Bool, periods: Bool = false) throws -> ComparisonResult {
        try adjusted(c, cells: split.cells, attributes: split.attributes, variant: v, slot: slot, cap: cap, alpha: alpha,
                     sequential: sequential, periods: periods)
    }

    /// The same over `cells[cell][variant]` tallies (a split's, or the timeline's as of one day).
    static func adjusted(_ c: ComparisonResult, cells: [[VariantTally]], attributes: [String], variant v: Int, slot: Int, cap: Double?,
                         alpha: Double, sequential: Bool, periods: Bool = false) throws -> ComparisonResult {
        let m = c.metric
        func summary(_ t: VariantTally) throws -> SampleSummary {
            if m.isRevenue { return try RevenueCapping.summary(values: t.values[slot], users: t.denominators[slot], cap: cap) }
            let k = Double(t.counts[slot])
            return try SampleSummary(count: t.denominators[slot], sum: k, sumOfSquares: k)
        }
        let strata = try cells.map { cell in
            PostStratification.Stratum(control: try summary(cell[0]), variant: try summary(cell[v]))
        }.filter { periods ? min($0.control.count, $0.variant.count) >= (m.isRevenue ? 2 : 1) : $0.control.count + $0.variant.count > 0 }
        let pooled = periods ? strata : try PostStratification.pool(strata, minimum: minimumStratumUsers)
        let whole = try strata.reduce(PostStratification.Stratum(control: SampleSummary(count: 0, sum: 0, sumOfSquares: 0),
                                                                  variant: SampleSummary(count: 0, sum: 0, sumOfSquares: 0))) {
            PostStratification.Stratum(control: try $0.control.merged(with: $1.control), variant: try $0.variant.merged(with: $1.variant))
        }
        if periods && pooled.isEmpty {
            var out = c
            out.nullReasons["variance_reduction"] = "no allocation period has users in both arms yet, so the figures are not stratified"
            return out
        }
        let spread: PostStratification.Spread = m.isRevenue ? .sample : .bernoulli
        let estimate: PostStratification.Estimate
        let plain: PostStratification.Estimate
        do {
            estimate = try PostStratification.estimate(pooled, spread: spread)
            plain = try PostStratification.estimate([whole], spread: spread)
        } catch {
            var out = c
            out.nullReasons["variance_reduction"] = periods ? "no allocation period has users in both arms yet, so the figures are not stratified"
                : "a stratum has too few users in an arm to post-stratify, so the figures are not adjusted"
            return out
        }
        var out = c
        out.test = periods ? (m.isRevenue ? "period-stratified welch" : "period-stratified z-test")
            : m.isRevenue ? "post-stratified welch" : "post-stratified z-test"
        out.absoluteDiff = estimate.difference
        let ci = try estimate.interval(alpha: alpha)
        out.absoluteCI = Bounds(ci.lower, ci.upper)
        // The log-ratio interval, as the unadjusted comparisons give it.
        let relativeCI = try estimate.logRelativeInterval(alpha: alpha)
        // A rate's lift needs both arms to have events, as unadjusted; revenue keeps a lift while the control's mean is positive.
        out.relativeLift = m.isRevenue || relativeCI != nil ? estimate.relativeLift : nil
        out.relativeCI = relativeCI.map { Bounds($0.lower, $0.upper) }
        out.nullReasons["relative_lift"] = nil
        out.nullReasons["relative_ci"] = nil
        if relativeCI == nil {
            let who = estimate.controlMean <= 0 && estimate.variantMean <= 0 ? "neither arm's adjusted \(m.isRevenue ? Wording.moneyWords(m) + " per user" : "rate") is positive"
                : estimate.controlMean <= 0 ? "the control's adjusted \(m.isRevenue ? Wording.moneyWords(m) + " per user" : "rate") is not positive"
                : "“\(c.variant)”'s adjusted \(m.isRevenue ? Wording.moneyWords(m) + " per user" : "rate") is not positive"
            let reason = who + ", so a relative change cannot be estimated"
            if out.relativeLift == nil { out.nullReasons["relative_lift"] = reason }
            out.nullReasons["relative_ci"] = reason
        }
        out.pValue = estimate.pValue
        out.pValueAdjusted = estimate.pValue
        if let win = estimate.chanceToWin, let loss = estimate.expectedLoss {
            // In the metric's good direction, as the unadjusted figures: for a lower-is-better
            // rate the chance the variant's rate is lower, and the expected rise E[max(D, 0)], D ~ Normal(d, s²).
            let s = estimate.standardError, z = estimate.difference / s
            out.chanceToWin = m.lowerIsBetter ? 1 - win : win
            out.expectedLoss = m.lowerIsBetter ? max(0, s * Normal.pdf(z) + estimate.difference * Normal.cdf(z)) : loss
            out.expectedLossIfShipped = out.expectedLoss
            out.nullReasons["chance_to_win"] = nil
            out.nullReasons["expected_loss"] = nil
        }
        let reduction: Double? = plain.variance > 0 ? 1 - estimate.variance / plain.variance : nil
        var unadjusted = c
        unadjusted.reading = VerdictReading.read(c, alpha: alpha, sequential: sequential)
        out.adjustment = Adjustment(unadjusted: unadjusted, varianceReduction: reduction,
                                    varianceReductionNullReason: reduction == nil ? "the unadjusted difference has no variance" : nil,
                                    attributes: periods ? ["allocation_period"] : attributes, strata: pooled.count)
        return out
    }
}
