import Events
import ExperimentDefinitions
import Foundation
import Statistics

/// Turns one experiment's tallies into a `Report`: every statistic comes from the `Statistics` target.
///
/// What it computes: per variant, each rate with its Wilson interval and revenue per
/// user with a t interval; per treatment and metric, the difference to the control (unpooled Wald),
/// the relative lift (delta method), the pooled z-test p-value (Welch for revenue), Holm-adjusted
/// across treatments, chance to win and expected loss (Beta(1, 1) priors), and, for sequential
/// experiments, the always-valid mSPRT p-value and interval; sample ratio mismatch against the
/// weights; Kaplan–Meier survival from trial start to the subscription's end with the log-rank test.
public enum ReportAnalyzer {
    public static func analyze(_ acc: ReportAccumulator) throws -> Report {
        let exp = acc.experiment
        let options = acc.options
        let alpha = options.alpha
        let tallies = acc.tallies

        let metrics = acc.metrics
        // Revenue metrics: the cap over all variants, then each variant's capped sums.
        var caps: [Double?] = Array(repeating: nil, count: metrics.count)
        var summaries: [[SampleSummary?]] = Array(repeating: Array(repeating: nil, count: metrics.count), count: tallies.count)
        for (slot, m) in metrics.enumerated() where m.isRevenue {
            caps[slot] = try RevenueCapping.cap(exp.metrics.revenueCap, values: tallies.map { $0.values[slot] })
            for (v, t) in tallies.enumerated() {
                summaries[v][slot] = try RevenueCapping.summary(values: t.values[slot], users: t.denominators[slot], cap: caps[slot])
            }
        }
        let context = Context(metrics: metrics, caps: caps, summaries: summaries)
        let variants = try tallies.enumerated().map { i, t in
            VariantResult(key: t.key, users: t.users, isControl: i == 0,
                          metrics: try metrics.indices.map { try metricValue($0, variant: i, t, context, alpha: alpha) })
        }
        let ltvCap = metrics.firstIndex(of: .revenuePerUser).flatMap { caps[$0] }
        // The three costly parts (Bayesian integrals, survival curves, conversion curves) run side by side.
        let (plain, survival, curves) = try Concurrently.run(
            { try compare(tallies, context, experiment: exp, alpha: alpha) },
            { try survivalResult(tallies, options: options) },
            { (try tallies.map(conversionCurve), tallies.map { revenueCurve($0, cap: ltvCap) }) })
        let adjusted = try PostStratifiedComparisons.adjusting(plain, acc: acc, caps: caps, alpha: alpha)
        let stratified = try BanditAnalysis.stratifying(adjusted, acc: acc, caps: caps, alpha: alpha)
        let forecast = try forecastFigures(acc, metrics: metrics, variants: tallies.map(\.key), alpha: alpha)
        let comparisons = VerdictReading.read(stratified + forecast.comparisons, alpha: alpha, sequential: exp.metrics.sequential)
        let bandit = BanditAnalysis.allocation(acc)
        let srm = try bandit?.srm ?? sampleRatio(tallies, experiment: exp, firstStop: acc.firstStop)
        let copy = copySplits(tallies, experiment: exp)
        let maturityDays = exp.maturityDays
        let primary = ReportAccumulator.verdictPrimary(exp, among: metrics)
        var required = requiredUsers(tallies, context, primary: primary, experiment: exp, options: options)
        let matureShares: [Double?] = tallies.map { $0.users > 0 ? Double($0.users(olderThan: maturityDays)) / Double($0.users) : nil }

        var figures = ReportFigures(
            experimentID: exp.id, experimentName: exp.name, hypothesis: exp.hypothesis, status: exp.status.rawValue,
            // `generated_at` is the as-of moment, and the window of first exposures ends there,
            // so a store read as of one moment gives the same report however the moment was given.
            generatedAt: acc.inputs.asOf, asOf: acc.inputs.asOf, since: options.since, until: acc.inputs.asOf, alpha: alpha,
            primaryMetric: exp.metrics.primary, guardrails: exp.metrics.guardrails, secondary: exp.metrics.secondary,
            metrics: metrics + forecast.metrics, revenueCap: exp.metrics.revenueCap, maturityDays: maturityDays,
            longestTrialDays: exp.longestTrialDays, matureShares: matureShares, currency: options.currency, minimumEffect: exp.metrics.minimumEffect,
            sequential: exp.metrics.sequential, users: acc.users, crossoverUsers: acc.crossoverUsers,
            firstExposure: acc.firstExposure.map { Date(timeIntervalSince1970: Double($0) / 1_000_000) },
            lastExposure: acc.lastExposure.map { Date(timeIntervalSince1970: Double($0) / 1_000_000) },
            srm: srm, variants: zip(variants, forecast.values).map { VariantResult(key: $0.key, users: $0.users, isControl: $0.isControl, metrics: $0.metrics + $1) },
            comparisons: comparisons, survival: survival, conversionByDay: curves.0, revenueByDay: curves.1, copySources: copy,
            requiredUsersPerVariant: required.perVariant)
        figures.segments = try SegmentAnalysis.analyze(acc, caps: caps, alpha: alpha)
        figures.offerMismatch = try OfferChecks.figures(acc)
        figures.proceedsBeforeTax = acc.proceedsBeforeTax
        figures.storefrontClaims = StorefrontClaims.differing(exp, products: options.products)
        figures.forecast = forecast.arms
        figures.safeguards = acc.safeguards
        figures.allocation = bandit?.allocation
        figures.safeguardMetrics = exp.safeguards?.metrics ?? []
        figures.timeline = try TimelineAnalysis.timeline(acc, alpha: alpha)
        let eta = DecisionTiming.eta(tallies, context, primary: primary, required: required, maturityDays: maturityDays, asOf: acc.inputs.asOf)
        if eta.unreachable { required.unreachable = eta.reason }
        // The verdict first: the health checks say nothing that contradicts its next step.
        let decision = decision(figures, required: required, eta: (eta.date, eta.reason))
        // Segment warnings join the checks by level, after the others of their level.
        let health = (HealthChecks.make(figures, accumulator: acc, required: required, verdict: decision.verdict) + SegmentAnalysis.health(figures.segments))
            .enumerated().sorted { ($0.element.level, $0.offset) < ($1.element.level, $1.offset) }.map(\.element)
        return Report(figures: figures, health: health, decision: decision)
    }

    /// The verdict (`DecisionRule`, or a bandit's own rule), a note when the primary is a forecast, and `eta`.
    static func decision(_ figures: ReportFigures, required: SampleRequirement, eta: (Date?, String?)) -> Decision {
        var decision = BanditAnalysis.decision(DecisionRule.decide(figures, required: required), figures: figures)
        if figures.primaryMetric.isForecast {
            let money = Wording.moneyWords(figures.primaryMetric)
            decision.reasons.append("The primary metric is a forecast, not \(money) already received: \(money) per user by day \(figures.primaryMetric.horizonDays ?? 0), each arm's \(money) to date plus the further payments its renewal model expects (docs/Forecast.md), compared on the bootstrap interval of the difference.")
        }
        (decision.eta, decision.etaReason) = eta
        return decision
    }

    /// The stops made by `asOf`, oldest first; a reset after `asOf` had not happened yet.
    static func safeguardsAsOf(_ stops: [SafeguardStop], asOf: Date) -> [SafeguardStop] {
        let cut = Timestamp(asOf)
        return stops.filter { $0.stoppedAt <= cut }.sorted { ($0.stoppedAt, $0.id) < ($1.stoppedAt, $1.id) }.map { stop in
            var s = stop
            if let reset = s.resetAt, reset > cut { s.resetAt = nil; s.resetBy = nil }
            return s
        }
    }

    /// What the per-metric steps share: the report's metrics, each revenue metric's cap, and per variant
    /// and revenue metric the capped summary.
    struct Context: Sendable {
        var metrics: [Metric]
        var caps: [Double?]
        var summaries: [[SampleSummary?]]
    }

    // MARK: Per variant

    static func metricValue(_ slot: Int, variant v: Int, _ t: VariantTally, _ ctx: Context, alpha: Double) throws -> MetricValue {
        let m = ctx.metrics[slot]
        let k = t.counts[slot], n = t.denominators[slot]
        let who = m.unit.words
        let waiting = m.horizonDays.map { " followed for \($0) day\($0 == 1 ? "" : "s")" } ?? ""
        if m.isRevenue {
            let s = ctx.summaries[v][slot]!
            guard n > 0 else {
                return MetricValue(metric: m, count: k, denominator: n, rate: nil, ci: nil, sum: s.sum, cap: ctx.caps[slot], nullReason: "no \(who)\(waiting) in this variant yet")
            }
            let mean = try s.mean()
            guard n >= 2 else {
                return MetricValue(metric: m, count: k, denominator: n, rate: mean, ci: nil, sum: s.sum, cap: ctx.caps[slot], nullReason: "an interval needs at least two users")
            }
            let half = StudentT.quantile(1 - alpha / 2, degreesOfFreedom: Double(n - 1)) * (try s.variance() / Double(n)).squareRoot()
            return MetricValue(metric: m, count: k, denominator: n, rate: mean, ci: Bounds(mean - half, mean + half), sum: s.sum, cap: ctx.caps[slot])
        }
        let leftOut = t.leftOut[slot]
        guard n > 0 else {
            var value = MetricValue(metric: m, count: k, denominator: n, rate: nil, ci: nil,
                                    nullReason: leftOut > 0 ? leftOutWords(leftOut) : "no \(who)\(waiting) in this variant yet")
            if leftOut > 0 { value.nullReasons["denominator"] = leftOutWords(leftOut) }
            return value
        }
        let p = try Proportion(count: k, total: n)
        let ci = try p.wilsonInterval(alpha: alpha)
        var value = MetricValue(metric: m, count: k, denominator: n, rate: p.rate, ci: Bounds(ci.lower, ci.upper))
        if leftOut > 0 { value.nullReasons["denominator"] = leftOutWords(leftOut) }
        return value
    }

    /// Trial starters `trial_cancel_rate` leaves out, in words, the same in every format.
    static func leftOutWords(_ n: Int) -> String {
        "\(Wording.counted(n, "trial starter")) left out: how long \(n == 1 ? "its" : "their") trial ran cannot be told (the trial start carries no trial_days and the arm offers no trial)"
    }

    // MARK: Comparisons

    static func compare(_ tallies: [VariantTally], _ ctx: Context, experiment: Experiment, alpha: Double) throws -> [ComparisonResult] {
        guard tallies.count >= 2 else { return [] }
        let control = tallies[0]
        var out: [ComparisonResult] = []
        for (slot, m) in ctx.metrics.enumerated() {
            var rows: [ComparisonResult] = []
            for (v, t) in tallies.enumerated().dropFirst() {
                rows.append(m.isRevenue
                    ? try compareRevenue(m, control: ctx.summaries[0][slot]!, variant: ctx.summaries[v][slot]!, key: t.key, cap: ctx.caps[slot], alpha: alpha)
                    : try compareRates(m, slot: slot, control, t, alpha: alpha, experiment: experiment))
            }
            try ComparisonResult.adjustHolm(&rows)
            out += rows
        }
        return out
    }

    /// `chances: false` leaves out the chance to win and the expected loss (three integrals per
    /// comparison, the costliest part) and the sequential test: for the timeline, whose points show
    /// the difference and its interval only.
    static func compareRates(_ m: Metric, slot: Int, _ control: VariantTally, _ variant: VariantTally, alpha: Double, experiment: Experiment,
                             chances: Bool = true) throws -> ComparisonResult {
        var c = ComparisonResult(variant: variant.key, metric: m, test: "z-test")
        let kc = control.counts[slot], nc = control.denominators[slot], kv = variant.counts[slot], nv = variant.denominators[slot]
        let sequential = experiment.metrics.sequential && m.horizonDays == nil
        guard nc > 0, nv > 0 else {
            let who = m.unit.words
            let reason = nc == 0 ? "the control has no \(who) yet" : "this variant has no \(who) yet"
            for field in ["absolute_diff", "absolute_ci", "relative_lift", "relative_ci", "p_value", "chance_to_win", "expected_loss"] { c.nullReasons[field] = reason }
            if sequential { c.nullReasons["sequential_p_value"] = reason }
            return c
        }
        let pc = try Proportion(count: kc, total: nc), pv = try Proportion(count: kv, total: nv)
        let z = try ProportionComparison(control: pc, variant: pv, alpha: alpha)
        c.absoluteDiff = z.absoluteDifference
        c.absoluteCI = Bounds(z.absoluteInterval.lower, z.absoluteInterval.upper)
        c.relativeLift = z.relativeLift
        c.relativeCI = z.relativeInterval.map { Bounds($0.lower, $0.upper) }
        if z.relativeLift == nil {
            // A ratio with a zero count has no interval (and "−100%" from an arm still waiting is not a finding).
            let events = m.countWords
            let reason = kc == 0 && kv == 0 ? "neither arm has \(events) yet"
                : kc == 0 ? "the control has no \(events) yet" : "“\(variant.key)” has no \(events) yet"
            c.nullReasons["relative_lift"] = reason + ", so a relative change cannot be estimated"
            c.nullReasons["relative_ci"] = c.nullReasons["relative_lift"]
        }
        if kc == 0 && kv == 0 {
            // Two arms with no events show no difference to test: a p-value of 1 and a chance to win
            // that only echoes the arms' sizes would read as findings.
            let reason = "neither arm has \(m.countWords) yet, so there is no difference to test"
            for field in ["p_value", "chance_to_win", "expected_loss"] { c.nullReasons[field] = reason }
            if sequential { c.nullReasons["sequential_p_value"] = reason }
            c.expectedLossIfShipped = nil
            return c
        }
        c.pValue = z.pValue
        guard chances else { return c }
        // In the metric's good direction: for cancel and refund rates, the chance the variant's rate is lower.
        let bayes = BayesianComparison(control: pc, variant: pv, lowerIsBetter: m.lowerIsBetter)
        c.chanceToWin = bayes.chanceToWin
        c.expectedLoss = bayes.expectedLoss
        c.expectedLossIfShipped = bayes.expectedLoss
        if sequential, let look = try sequentialLooks(slot, control, variant, alpha: alpha, tau2: mixingVariance(control: pc.rate, minimumEffect: experiment.metrics.minimumEffect)) {
            c.sequentialPValue = look.pValue
            c.sequentialCI = Bounds(look.interval.lower, look.interval.upper)
        }
        return c
    }

    /// The mSPRT after one look per day (cumulative counts at the end of each UTC day, days where both
    /// arms have a denominator), as someone checking the report daily would have seen it; returns the last look.
    static func sequentialLooks(_ i: Int, _ control: VariantTally, _ variant: VariantTally, alpha: Double, tau2: Double) throws -> SequentialTest.Look? {
        guard i < control.dailyDenominators.count, i < variant.dailyDenominators.count else { return nil }
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
        SequentialTest.mixingVariance(controlRate: control, minimumEffect: minimumEffect)
    }

    /// Welch's test and interval, and the normal-approximation chance to win and expected loss, on capped values.
    static func compareRevenue(_ m: Metric, control: SampleSummary, variant: SampleSummary, key: String, cap: Double?, alpha: Double) throws -> ComparisonResult {
        var c = ComparisonResult(variant: key, metric: m, test: "welch")
        c.cap = cap
        guard control.count >= 2, variant.count >= 2 else {
            let reason = m.horizonDays == nil ? "Welch's test needs at least two users in each variant"
                : "Welch's test needs at least two users followed for \(m.horizonDays!) days in each variant"
            for field in ["absolute_diff", "absolute_ci", "relative_lift", "relative_ci", "p_value", "chance_to_win", "expected_loss"] { c.nullReasons[field] = reason }
            return c
        }
        let w = try WelchTest(control: control, variant: variant, alpha: alpha)
        c.absoluteDiff = w.meanDifference
        c.absoluteCI = Bounds(w.interval.lower, w.interval.upper)
        c.relativeLift = w.relativeLift
        c.relativeCI = w.relativeInterval.map { Bounds($0.lower, $0.upper) }
        if w.relativeInterval == nil {
            // The log of a ratio of means needs both means positive; say which is not, and why.
            func why(_ s: SampleSummary, _ name: String) -> String? {
                guard let mean = try? s.mean(), mean <= 0 else { return nil }
                return s.sumOfSquares == 0 ? "\(name) has no payers yet" : "\(name)'s \(Wording.moneyWords(m)) per user is not positive (refunds outweigh payments)"
            }
            let reasons = [why(control, "the control"), why(variant, "“\(key)”")].compactMap { $0 }
            let reason = reasons.joined(separator: " and ") + ", so a relative change cannot be estimated"
            if w.relativeLift == nil { c.nullReasons["relative_lift"] = reason }
            c.nullReasons["relative_ci"] = reason
        }
        c.pValue = w.pValue
        do {
            let bayes = try NormalBayesianComparison(control: control, variant: variant)
            c.chanceToWin = bayes.chanceToWin
            c.expectedLoss = bayes.expectedLoss
            c.expectedLossIfShipped = bayes.expectedLoss
        } catch {
            c.nullReasons["chance_to_win"] = "every user has the same revenue in both variants, so there is no spread to judge a difference by"
            c.nullReasons["expected_loss"] = c.nullReasons["chance_to_win"]
        }
        return c
    }

    /// Cumulative net revenue per exposed user by day since first exposure (realised LTV), each user
    /// counted for the days followed: the sum over days k <= d of (revenue on day k of users followed at
    /// least k days) / (users followed at least k days). Each user's running total is capped at `cap`.
    static func revenueCurve(_ t: VariantTally, cap: Double?) -> RevenueCurve {
        let days = VariantTally.curveDays
        var atRisk = Array(repeating: 0, count: days + 2)
        for f in 0...days { for p in 0...(days + 1) { atRisk[f] += t.followUpCount(followed: f, paidDay: p) } }
        for f in stride(from: days - 1, through: 0, by: -1) { atRisk[f] += atRisk[f + 1] }
        var byDay = Array(repeating: 0.0, count: days + 1)
        for u in t.ltvFollowed.indices {
            let end = u + 1 < t.ltvEntryStart.count ? t.ltvEntryStart[u + 1] : t.ltvEntryDay.count
            var total = 0.0
            for e in t.ltvEntryStart[u]..<end {
                let before = cap.map { min(total, $0) } ?? total
                total += t.ltvEntryAmount[e]
                let after = cap.map { min(total, $0) } ?? total
                byDay[Int(t.ltvEntryDay[e])] += after - before
            }
        }
        var running = 0.0
        var points: [RevenueCurve.Point] = []
        for d in 0...days {
            guard atRisk[d] > 0 else {
                points.append(.init(day: d, users: 0, revenuePerUser: nil))
                continue
            }
            running += byDay[d] / Double(atRisk[d])
            points.append(.init(day: d, users: atRisk[d], revenuePerUser: running))
        }
        return RevenueCurve(key: t.key, points: points)
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

    /// Counts users first exposed before `firstStop` (µs), the experiment's first safeguard stop, if any.
    static func sampleRatio(_ tallies: [VariantTally], experiment: Experiment, firstStop: Int64? = nil) throws -> SRMResult {
        let weights = experiment.normalizedWeights
        let counts = tallies.map(\.usersBeforeFirstStop)
        let before = firstStop.map { Date(timeIntervalSince1970: Double($0) / 1_000_000) }
        guard tallies.count >= 2 else {
            return SRMResult(pValue: nil, flagged: false, expectedShares: weights, counts: counts, countedBefore: before, nullReason: "one variant only")
        }
        guard counts.contains(where: { $0 > 0 }) else {
            return SRMResult(pValue: nil, flagged: false, expectedShares: weights, counts: counts, countedBefore: before,
                             nullReason: before == nil ? "no users yet" : "no users first exposed before the first safeguard stop")
        }
        let s = try SampleRatioMismatch(counts: counts, weights: weights)
        return SRMResult(pValue: s.pValue, statistic: s.statistic, flagged: s.flagged, expectedShares: weights, counts: counts, countedBefore: before)
    }

    /// At most this many points per survival curve for the chart.
    static let chartPoints = 400

    static func survivalResult(_ tallies: [VariantTally], options: ReportOptions) throws -> SurvivalResult {
        // Day d of the table is the (d + 1)-th 24 hours since trial start (day 0 holds the Day-0 cancels):
        // survival at its end, so day 0 shows who is still subscribed after the first day, not a bare 100%.
        let days = SurvivalResult.reportDays.map { Double($0 + 1) }
        var curves: [SurvivalResult.Curve] = []
        var groups: [[SurvivalObservation]] = []
        for t in tallies {
            // Sorted by time once here: the curve and the log-rank test each sort again, which on sorted
            // runs is a pass over them rather than a sort of hundreds of thousands of trial starters.
            var obs = try zip(t.survivalDays, t.survivalCancelled).map { try SurvivalObservation(time: $0, event: $1) }
            obs.sort { $0.time < $1.time }
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
                                intervals: days.map { let i = km.interval(at: $0); return Bounds(i.lower, i.upper) }, steps: steps,
                                ends: t.ends))
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
            let isAI = if case .aiGenerated? = variant.paywall?.copy { true } else { false }
            guard isAI || t.copySourceUsers.keys.contains(where: aiSources.contains) else { return nil }
            let sources = t.copySourceUsers.map { CopySourceSplit.Source(source: $0.key, users: $0.value, paid: t.copySourcePaid[$0.key] ?? 0) }
                .sorted { ($0.users, $1.source) > ($1.users, $0.source) }
            let reasons = t.fallbackReasons.map { (reason: $0.key, count: $0.value) }.sorted { ($0.count, $1.reason) > ($1.count, $0.reason) }
            return CopySourceSplit(variant: t.key, sources: sources, fallbackReasons: reasons)
        }
    }

    /// Users the verdict's primary metric needs per variant for `minimum_effect` at 80% power, in its
    /// denominator's units, and how many the smallest arm has: for rates from the control's rate, for
    /// revenue from the control's mean and variance.
    static func requiredUsers(_ tallies: [VariantTally], _ ctx: Context, primary: Metric, experiment: Experiment, options: ReportOptions) -> SampleRequirement {
        guard let slot = ctx.metrics.firstIndex(of: primary) else {
            return SampleRequirement(perVariant: nil, smallestArm: tallies.map(\.users).min() ?? 0,
                                     reasonUnknown: "the sample-size formula here is for rates and revenue to date; a revenue forecast has none")
        }
        let smallest = tallies.map { $0.denominators[slot] }.min() ?? 0
        guard tallies.count >= 2 else { return SampleRequirement(perVariant: nil, smallestArm: smallest, reasonUnknown: "there is only one variant") }
        let mde = experiment.metrics.minimumEffect
        if primary.isRevenue {
            let s = ctx.summaries[0][slot]!
            guard s.count >= 2, let mean = try? s.mean(), let variance = try? s.variance() else {
                return SampleRequirement(perVariant: nil, smallestArm: smallest, reasonUnknown: "the control has fewer than two \(primary.unit.words) to measure its spread")
            }
            guard mean > 0, variance > 0 else {
                return SampleRequirement(perVariant: nil, smallestArm: smallest, reasonUnknown: s.sumOfSquares == 0 ? "the control has no payers yet" : "the control's \(Wording.moneyWords(primary)) per user is not positive")
            }
            do {
                let n = try SampleSize.usersPerVariant(mean: mean, standardDeviation: variance.squareRoot(), relativeMDE: mde,
                                                       alpha: options.alpha, power: options.power, variants: tallies.count)
                return SampleRequirement(perVariant: n, smallestArm: smallest)
            } catch {
                return SampleRequirement(perVariant: nil, smallestArm: smallest, reasonUnknown: "a \(Wording.signedPercent(mde, digits: 0)) change is too small to size")
            }
        }
        let k = tallies[0].counts[slot], n = tallies[0].denominators[slot]
        guard n > 0, k > 0, k < n else {
            return SampleRequirement(perVariant: nil, smallestArm: smallest,
                               reasonUnknown: n == 0 ? "the control has no \(primary.unit.words) old enough yet" : "the control's \(primary.title.lowercased()) is \(k == 0 ? "0%" : "100%") so far")
        }
        let baseline = Double(k) / Double(n)
        do {
            let s = try SampleSize(baseline: baseline, relativeMDE: mde, alpha: options.alpha, power: options.power, variants: tallies.count)
            return SampleRequirement(perVariant: s.usersPerVariant, smallestArm: smallest)
        } catch {
            return SampleRequirement(perVariant: nil, smallestArm: smallest,
                               reasonUnknown: "a \(Wording.signedPercent(mde, digits: 0)) change from \(Wording.percent(baseline)) is not a possible rate")
        }
    }

}

