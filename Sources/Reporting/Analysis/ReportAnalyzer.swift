import ExperimentDefinitions
import Foundation
import Statistics

/// Turns one experiment's tallies into a `Report`: every statistic comes from the `Statistics` target.
///
/// What it computes, per SPEC §5: per variant, each rate with its Wilson interval and revenue per
/// user with a t interval; per treatment and metric, the difference to the control (unpooled Wald),
/// the relative lift (delta method), the pooled z-test p-value (Welch for revenue), Holm-adjusted
/// across treatments, chance to win and expected loss (Beta(1, 1) priors), and, for sequential
/// experiments, the always-valid mSPRT p-value and interval; sample ratio mismatch against the
/// weights; Kaplan–Meier survival from trial start to cancel with the log-rank test.
public enum ReportAnalyzer {
    public static func analyze(_ acc: ReportAccumulator) throws -> Report {
        let exp = acc.experiment
        let options = acc.options
        let alpha = options.alpha
        let tallies = acc.tallies

        let variants = try tallies.enumerated().map { i, t in
            VariantResult(key: t.key, users: t.users, isControl: i == 0, metrics: try Metric.allCases.map { try metricValue($0, t, alpha: alpha) })
        }
        // The three costly parts (Bayesian integrals, survival curves, conversion curves) run side by side.
        let (comparisons, survival, curves) = try Concurrently.run(
            { try compare(tallies, experiment: exp, alpha: alpha) },
            { try survivalResult(tallies, options: options) },
            { try tallies.map(conversionCurve) })
        let srm = try sampleRatio(tallies, experiment: exp)
        let copy = copySplits(tallies, experiment: exp)
        let required = requiredUsers(tallies, experiment: exp, options: options)

        var report = Report(
            experimentID: exp.id, experimentName: exp.name, hypothesis: exp.hypothesis, status: exp.status.rawValue,
            generatedAt: options.generatedAt, asOf: options.asOf, since: options.since, until: options.until, alpha: alpha,
            primaryMetric: exp.metrics.primary, guardrails: exp.metrics.guardrails, minimumEffect: exp.metrics.minimumEffect,
            sequential: exp.metrics.sequential, users: acc.users,
            firstExposure: acc.firstExposure.map { Date(timeIntervalSince1970: Double($0) / 1_000_000) },
            lastExposure: acc.lastExposure.map { Date(timeIntervalSince1970: Double($0) / 1_000_000) },
            srm: srm, variants: variants, comparisons: comparisons, survival: survival, conversionByDay: curves, copySources: copy,
            health: [], requiredUsersPerVariant: required.perVariant, decision: Decision(verdict: .keepRunning, reasons: []))
        report.health = HealthChecks.make(report, accumulator: acc, required: required)
        report.decision = DecisionRule.decide(report, required: required)
        return report
    }

    // MARK: Per variant

    static func counts(_ m: Metric, _ t: VariantTally) -> (count: Int, total: Int) {
        switch m {
        case .trialStartRate: (t.trialStarters, t.users)
        case .paidConversion: (t.paid, t.users)
        case .trialToPaid: (t.trialConverted, t.trialStarters)
        case .day0CancelRate: (t.day0Cancels, t.trialStarters)
        case .trialCancelRate: (t.trialCancels, t.trialStarters)
        case .revenuePerUser: (t.payingUsers, t.users)
        }
    }

    static func metricValue(_ m: Metric, _ t: VariantTally, alpha: Double) throws -> MetricValue {
        let (k, n) = counts(m, t)
        if m == .revenuePerUser {
            guard n > 0 else {
                return MetricValue(metric: m, count: k, denominator: n, rate: nil, ci: nil, sum: t.revenueSum, nullReason: "no users in this variant yet")
            }
            let s = try summary(t)
            let mean = try s.mean()
            guard n >= 2 else {
                return MetricValue(metric: m, count: k, denominator: n, rate: mean, ci: nil, sum: t.revenueSum, nullReason: "an interval needs at least two users")
            }
            let half = StudentT.quantile(1 - alpha / 2, degreesOfFreedom: Double(n - 1)) * (try s.variance() / Double(n)).squareRoot()
            return MetricValue(metric: m, count: k, denominator: n, rate: mean, ci: Bounds(mean - half, mean + half), sum: t.revenueSum)
        }
        guard n > 0 else {
            let reason = m.denominatorIsTrialStarters ? "no trial starters in this variant yet" : "no users in this variant yet"
            return MetricValue(metric: m, count: k, denominator: n, rate: nil, ci: nil, nullReason: reason)
        }
        let p = try Proportion(count: k, total: n)
        let ci = try p.wilsonInterval(alpha: alpha)
        return MetricValue(metric: m, count: k, denominator: n, rate: p.rate, ci: Bounds(ci.lower, ci.upper))
    }

    static func summary(_ t: VariantTally) throws -> SampleSummary {
        try SampleSummary(count: t.users, sum: t.revenueSum, sumOfSquares: t.revenueSumOfSquares)
    }

    // MARK: Comparisons

    static func compare(_ tallies: [VariantTally], experiment: Experiment, alpha: Double) throws -> [ComparisonResult] {
        guard tallies.count >= 2 else { return [] }
        let control = tallies[0]
        var out: [ComparisonResult] = []
        for m in Metric.allCases {
            var rows: [ComparisonResult] = []
            for t in tallies.dropFirst() {
                rows.append(m == .revenuePerUser ? try compareRevenue(control, t, alpha: alpha)
                    : try compareRates(m, control, t, alpha: alpha, experiment: experiment))
            }
            // Holm across the treatments of this metric, over the p-values that exist.
            let present = rows.indices.filter { rows[$0].pValue != nil }
            let adjusted = try MultipleTesting.holm(present.map { rows[$0].pValue! })
            for (i, p) in zip(present, adjusted) { rows[i].pValueAdjusted = p }
            for i in rows.indices where rows[i].pValue == nil { rows[i].nullReasons["p_value_adjusted"] = rows[i].nullReasons["p_value"] }
            out += rows
        }
        return out
    }

    static func compareRates(_ m: Metric, _ control: VariantTally, _ variant: VariantTally, alpha: Double, experiment: Experiment) throws -> ComparisonResult {
        var c = ComparisonResult(variant: variant.key, metric: m, test: "z-test")
        let (kc, nc) = counts(m, control), (kv, nv) = counts(m, variant)
        guard nc > 0, nv > 0 else {
            let who = m.denominatorIsTrialStarters ? "trial starters" : "users"
            let reason = nc == 0 ? "the control has no \(who) yet" : "this variant has no \(who) yet"
            for field in ["absolute_diff", "absolute_ci", "relative_lift", "relative_ci", "p_value", "chance_to_win", "expected_loss"] { c.nullReasons[field] = reason }
            if experiment.metrics.sequential { c.nullReasons["sequential_p_value"] = reason }
            return c
        }
        let pc = try Proportion(count: kc, total: nc), pv = try Proportion(count: kv, total: nv)
        let z = try ProportionComparison(control: pc, variant: pv, alpha: alpha)
        c.absoluteDiff = z.absoluteDifference
        c.absoluteCI = Bounds(z.absoluteInterval.lower, z.absoluteInterval.upper)
        c.relativeLift = z.relativeLift
        c.relativeCI = z.relativeInterval.map { Bounds($0.lower, $0.upper) }
        if z.relativeLift == nil {
            c.nullReasons["relative_lift"] = "the control's rate is 0, so a relative change is undefined"
            c.nullReasons["relative_ci"] = c.nullReasons["relative_lift"]
        }
        c.pValue = z.pValue
        let bayes = BayesianComparison(control: pc, variant: pv)
        c.chanceToWin = bayes.chanceToWin
        c.expectedLoss = bayes.expectedLoss
        // Shipping a variant of a lower-is-better metric risks the opposite shortfall.
        c.expectedLossIfShipped = m.lowerIsBetter ? BayesianComparison(control: pv, variant: pc).expectedLoss : bayes.expectedLoss
        if experiment.metrics.sequential, let look = try sequentialLooks(m, control, variant, alpha: alpha, tau2: mixingVariance(control: pc.rate, minimumEffect: experiment.metrics.minimumEffect)) {
            c.sequentialPValue = look.pValue
            c.sequentialCI = Bounds(look.interval.lower, look.interval.upper)
        }
        return c
    }

    /// The mSPRT after one look per day (cumulative counts at the end of each UTC day, days where both
    /// arms have a denominator), as someone checking the report daily would have seen it; returns the last look.
    static func sequentialLooks(_ m: Metric, _ control: VariantTally, _ variant: VariantTally, alpha: Double, tau2: Double) throws -> SequentialTest.Look? {
        guard let i = Metric.rates.firstIndex(of: m), i < control.dailyDenominators.count, i < variant.dailyDenominators.count else { return nil }
        var test = try SequentialTest(mixingVariance: tau2, alpha: alpha)
        var last: SequentialTest.Look?
        var nc = 0, kc = 0, nv = 0, kv = 0
        for day in 0..<min(control.dailyDenominators[i].count, variant.dailyDenominators[i].count) {
            nc += control.dailyDenominators[i][day]; kc += control.dailyNumerators[i][day]
            nv += variant.dailyDenominators[i][day]; kv += variant.dailyNumerators[i][day]
            guard nc > 0, nv > 0 else { continue }
            last = test.update(control: try Proportion(count: kc, total: nc), variant: try Proportion(count: kv, total: nv))
        }
        return last
    }

    /// τ² of the mSPRT mixture: the squared absolute effect the experiment hopes to see
    /// (minimum effect × the control's rate), or the Statistics default when that is 0.
    static func mixingVariance(control: Double, minimumEffect: Double) -> Double {
        let effect = abs(minimumEffect * control)
        return effect > 0 ? effect * effect : SequentialTest.defaultMixingVariance
    }

    static func compareRevenue(_ control: VariantTally, _ variant: VariantTally, alpha: Double) throws -> ComparisonResult {
        var c = ComparisonResult(variant: variant.key, metric: .revenuePerUser, test: "welch")
        c.nullReasons["chance_to_win"] = "the Beta-Binomial model applies to rates, not to revenue"
        c.nullReasons["expected_loss"] = c.nullReasons["chance_to_win"]
        guard control.users >= 2, variant.users >= 2 else {
            let reason = "Welch's test needs at least two users in each variant"
            for field in ["absolute_diff", "absolute_ci", "relative_lift", "relative_ci", "p_value"] { c.nullReasons[field] = reason }
            return c
        }
        let w = try WelchTest(control: try summary(control), variant: try summary(variant), alpha: alpha)
        c.absoluteDiff = w.meanDifference
        c.absoluteCI = Bounds(w.interval.lower, w.interval.upper)
        c.relativeLift = w.relativeLift
        c.relativeCI = w.relativeInterval.map { Bounds($0.lower, $0.upper) }
        if w.relativeLift == nil {
            c.nullReasons["relative_lift"] = "the control's revenue per user is 0, so a relative change is undefined"
            c.nullReasons["relative_ci"] = c.nullReasons["relative_lift"]
        }
        c.pValue = w.pValue
        return c
    }

    /// Cumulative paid conversion by day since exposure: 1 − the Kaplan–Meier curve of "not paid yet",
    /// each user censored at the whole days they have been followed (so recent users count for the days they had).
    static func conversionCurve(_ t: VariantTally) throws -> ConversionCurve {
        let cap = VariantTally.curveDays
        var observations: [SurvivalObservation] = []
        observations.reserveCapacity(t.users)
        var followedAtLeast = Array(repeating: 0, count: cap + 2)
        for f in 0...cap {
            for p in 0...(cap + 1) {
                let n = t.followUpCount(followed: f, paidDay: p)
                guard n > 0 else { continue }
                followedAtLeast[f] += n
                let paid = p <= cap
                let o = try SurvivalObservation(time: Double(paid ? p : f), event: paid)
                for _ in 0..<n { observations.append(o) }
            }
        }
        for f in stride(from: cap - 1, through: 0, by: -1) { followedAtLeast[f] += followedAtLeast[f + 1] }
        guard !observations.isEmpty else {
            return ConversionCurve(key: t.key, points: (0...cap).map { .init(day: $0, users: 0, rate: nil) })
        }
        let km = try KaplanMeier(observations, alpha: 0.05)
        return ConversionCurve(key: t.key, points: (0...cap).map { d in
            .init(day: d, users: followedAtLeast[d], rate: followedAtLeast[d] > 0 ? 1 - km.survival(at: Double(d)) : nil)
        })
    }

    // MARK: Sample ratio, survival, copy sources, sample size

    static func sampleRatio(_ tallies: [VariantTally], experiment: Experiment) throws -> SRMResult {
        let weights = experiment.normalizedWeights
        guard tallies.count >= 2 else { return SRMResult(pValue: nil, flagged: false, expectedShares: weights, nullReason: "one variant only") }
        guard tallies.contains(where: { $0.users > 0 }) else {
            return SRMResult(pValue: nil, flagged: false, expectedShares: weights, nullReason: "no users yet")
        }
        let s = try SampleRatioMismatch(counts: tallies.map(\.users), weights: weights)
        return SRMResult(pValue: s.pValue, statistic: s.statistic, flagged: s.flagged, expectedShares: weights)
    }

    /// At most this many points per survival curve for the chart.
    static let chartPoints = 400

    static func survivalResult(_ tallies: [VariantTally], options: ReportOptions) throws -> SurvivalResult {
        let days = SurvivalResult.reportDays.map(Double.init)
        var curves: [SurvivalResult.Curve] = []
        var groups: [[SurvivalObservation]] = []
        for t in tallies {
            let obs = try zip(t.survivalDays, t.survivalCancelled).map { try SurvivalObservation(time: $0, event: $1) }
            let cancels = t.survivalCancelled.reduce(0) { $0 + ($1 ? 1 : 0) }
            guard !obs.isEmpty else {
                curves.append(.init(key: t.key, trialStarters: 0, cancels: 0, atDays: nil))
                continue
            }
            groups.append(obs)
            let km = try KaplanMeier(obs, alpha: options.alpha)
            let drops = km.steps.filter { $0.events > 0 && $0.time <= Double(VariantTally.curveDays) }
            let stride = max(1, drops.count / chartPoints)
            var steps = Swift.stride(from: 0, to: drops.count, by: stride).map { (day: drops[$0].time, survival: drops[$0].survival) }
            if let last = drops.last, steps.last?.day != last.time { steps.append((last.time, last.survival)) }
            curves.append(.init(key: t.key, trialStarters: obs.count, cancels: cancels, atDays: km.survival(at: days),
                                intervals: days.map { let i = km.interval(at: $0); return Bounds(i.lower, i.upper) }, steps: steps))
        }
        guard groups.count >= 2 else {
            return SurvivalResult(curves: curves, logRankP: nil, nullReason: "the log-rank test needs trial starters in at least two variants")
        }
        let test = try LogRankTest(groups: groups)
        return SurvivalResult(curves: curves, logRankP: test.pValue)
    }

    static let aiSources: Set<String> = ["on_device", "server", "fallback"]

    static func copySplits(_ tallies: [VariantTally], experiment: Experiment) -> [CopySourceSplit] {
        zip(experiment.variants, tallies).compactMap { variant, t in
            let isAI = if case .aiGenerated = variant.paywall.copy { true } else { false }
            guard isAI || t.copySourceUsers.keys.contains(where: aiSources.contains) else { return nil }
            let sources = t.copySourceUsers.map { CopySourceSplit.Source(source: $0.key, users: $0.value, paid: t.copySourcePaid[$0.key] ?? 0) }
                .sorted { ($0.users, $1.source) > ($1.users, $0.source) }
            let reasons = t.fallbackReasons.map { (reason: $0.key, count: $0.value) }.sorted { ($0.count, $1.reason) > ($1.count, $0.reason) }
            return CopySourceSplit(variant: t.key, sources: sources, fallbackReasons: reasons)
        }
    }

    static func requiredUsers(_ tallies: [VariantTally], experiment: Experiment, options: ReportOptions) -> SampleRequirement {
        let primary = experiment.metrics.primary
        let smallest = tallies.map { counts(primary, $0).total }.min() ?? 0
        guard primary != .revenuePerUser else {
            return SampleRequirement(perVariant: nil, smallestArm: smallest, reasonUnknown: "the sample-size formula here is for rates; revenue per user has none")
        }
        guard tallies.count >= 2 else { return SampleRequirement(perVariant: nil, smallestArm: smallest, reasonUnknown: "there is only one variant") }
        let (k, n) = counts(primary, tallies[0])
        guard n > 0, k > 0, k < n else {
            return SampleRequirement(perVariant: nil, smallestArm: smallest,
                               reasonUnknown: n == 0 ? "the control has no data yet" : "the control's \(ReportFormat.title(primary).lowercased()) is \(k == 0 ? "0%" : "100%") so far")
        }
        let baseline = Double(k) / Double(n)
        do {
            let s = try SampleSize(baseline: baseline, relativeMDE: experiment.metrics.minimumEffect, alpha: options.alpha,
                                   power: options.power, variants: tallies.count)
            return SampleRequirement(perVariant: s.usersPerVariant, smallestArm: smallest)
        } catch {
            return SampleRequirement(perVariant: nil, smallestArm: smallest,
                               reasonUnknown: "a \(ReportFormat.signedPercent(experiment.metrics.minimumEffect, digits: 0)) change from \(ReportFormat.percent(baseline)) is not a possible rate")
        }
    }
}

