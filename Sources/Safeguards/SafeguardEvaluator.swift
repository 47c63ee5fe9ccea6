import Events
import ExperimentDefinitions
import Foundation
import Statistics

/// One safeguard evaluation: facts → mature outcomes → the one-sided always-valid test
/// (`OneSidedSequentialTest`, its mixing tuned to `minimum_harm`) of each (treatment arm, metric) against the control (a bandit's period-stratified,
/// as its report compares) → stops written through the store. Each test's mixing scale is fixed at the
/// first look that tests the arm and kept in the store (`SafeguardScaleStore`), so later looks and other nodes reuse it. Scheduled by the server every `check_minutes`; run once by `abctl safeguards check`.
public enum SafeguardEvaluator {
    /// One (arm, metric) as the evaluation saw it.
    public struct Finding: Sendable, Equatable {
        public var experiment: String
        public var arm: String
        public var metric: String
        /// Exposed users of the arm (the `min_users` gate counts these).
        public var armExposed: Int
        /// nil when the pair was not tested, with `skipped` saying why.
        public var figures: SafeguardFigures?
        public var skipped: String?
        /// The one-sided test concluded harm: its interval lies wholly on the harmful side.
        public var harmful: Bool
    }

    /// What one evaluation found and wrote.
    public struct Outcome: Sendable {
        public var findings: [Finding] = []
        /// Stops written by this evaluation.
        public var newStops: [SafeguardStop] = []
        /// The experiments whose arms were tested, in folder order.
        public var evaluated: [String] = []
        /// Running experiments with no `safeguards`: nothing watches them.
        public var withoutSafeguards: [String] = []
    }

    /// Evaluates every running experiment with `safeguards` at `now` and records a stop for each
    /// harmful arm not already stopped. The caller holds the store's lease. `stopID` names a new stop
    /// (experiment, arm, time); by default a random UUID (a simulated story names its stops by what
    /// they are, so a rerun writes the same bytes).
    public static func run(experiments: [Experiment], store: any FactsReader & SafeguardStopStore, now: Date,
                           stopID: ((String, String, Date) -> String)? = nil) throws -> Outcome {
        var outcome = Outcome()
        let inForce = try store.safeguardStopsInForce()
        outcome.withoutSafeguards = experiments.filter { $0.status == .running && $0.safeguards == nil }.map(\.id)
        for e in experiments where e.status == .running && e.safeguards != nil {
            if let start = e.start, now < start { continue }
            let stops = inForce.filter { $0.experiment == e.id }
            // A stopped experiment has nothing left to stop.
            if stops.contains(where: { $0.action == .stopExperiment }) { continue }
            outcome.evaluated.append(e.id)
            let findings = try evaluate(e, facts: store, scales: store, now: now)
            outcome.findings += findings
            var stoppedArms = Set(stops.map(\.arm))
            for f in findings where f.harmful && !stoppedArms.contains(f.arm) {
                guard let figures = f.figures, let config = e.safeguards else { continue }
                var stop = SafeguardStop(experiment: e.id, arm: f.arm, metric: f.metric, action: config.action,
                                         stoppedAt: Timestamp(now), figures: figures)
                if let stopID { stop.id = stopID(e.id, f.arm, now) }
                if try store.recordSafeguardStop(stop) { outcome.newStops.append(stop) }
                stoppedArms.insert(f.arm)
                if config.action == .stopExperiment { break }
            }
        }
        return outcome
    }

    /// Every (treatment arm, safeguarded metric) of `e` at `now`, from one pass over its facts; a pair
    /// tested for the first time fixes its mixing scale in `scales`.
    public static func evaluate(_ e: Experiment, facts: any FactsReader, scales: any SafeguardScaleStore, now: Date) throws -> [Finding] {
        guard let config = e.safeguards, e.variants.count >= 2 else { return [] }
        let rules = config.metrics.map { MatureOutcome(metric: $0, experiment: e) }
        let arms = e.variants.count
        let keys = e.variants.map(\.key)
        // denominators[m * arms + a], counts[m * arms + a]
        var denominators = [Int](repeating: 0, count: rules.count * arms)
        var counts = denominators
        var exposed = [Int](repeating: 0, count: arms)
        let nowMicros = Timestamp(now).microseconds
        // A bandit's arms are compared period-stratified, as its report compares them:
        // strata[m * arms + a][period], each period's mature users and counts.
        let bandit = e.allocation.flatMap { a in e.start.map { (a, $0) } }
        var strata = [[StratifiedRates.Cell]](repeating: [], count: bandit == nil ? 0 : rules.count * arms)
        // Users exposed after `now` are not there yet (an evaluation of an earlier time on a later store);
        // forced (QA) users and rows of variants the file no longer has are left out by the read.
        try facts.forEachFactTimes(experiment: e.id, until: Timestamp(microseconds: nowMicros + 1), variants: keys,
                                   excluding: Set(e.forced.keys)) { f in
            let a = f.arm
            exposed[a] += 1
            let period = bandit.map { $0.0.periodIndex(firstExposure: f.firstExposure, echoed: f.allocationPeriod, start: $0.1) }
            for (m, rule) in rules.enumerated() {
                guard let hit = rule.value(f, arm: a, now: nowMicros) else { continue }
                denominators[m * arms + a] += 1
                if hit { counts[m * arms + a] += 1 }
                if let period {
                    let i = m * arms + a
                    while strata[i].count <= period { strata[i].append(.init(users: 0, count: 0)) }
                    strata[i][period].users += 1
                    if hit { strata[i][period].count += 1 }
                }
            }
        }
        // Bonferroni over metrics × treatment arms keeps the family's level at alpha.
        let level = config.alpha / Double(config.metrics.count * (arms - 1))
        var findings: [Finding] = []
        for a in 1..<arms {
            for (m, metric) in config.metrics.enumerated() {
                var finding = Finding(experiment: e.id, arm: e.variants[a].key, metric: metric.name, armExposed: exposed[a], harmful: false)
                let nc = denominators[m * arms], kc = counts[m * arms], nv = denominators[m * arms + a], kv = counts[m * arms + a]
                if exposed[a] < config.minUsers {
                    finding.skipped = "\(exposed[a]) of min_users \(config.minUsers) exposed"
                } else if nc == 0 || nv == 0 {
                    finding.skipped = "no mature \(metric.unit.words) yet in \(nc == 0 ? "the control" : "this arm")"
                } else if bandit != nil {
                    guard let c = StratifiedRates.compare(control: strata[m * arms], treatment: strata[m * arms + a]) else {
                        finding.skipped = "no allocation period has mature \(metric.unit.words) in both the control and this arm yet"
                        findings.append(finding)
                        continue
                    }
                    let periods = strata[m * arms].indices.filter { $0 < strata[m * arms + a].count && strata[m * arms][$0].users > 0 && strata[m * arms + a][$0].users > 0 }.count
                    let tau2 = try mixingVariance(e, arm: finding.arm, metric: metric.name, controlRate: c.control,
                                                  minimumHarm: config.minimumHarm, scales: scales, now: now)
                    let look = try test(harm: metric.lowerIsBetter ? c.difference : -c.difference,
                                        variance: c.standardError * c.standardError, mixingVariance: tau2, level: level)
                    finding.figures = SafeguardFigures(controlUsers: nc, controlCount: kc, armUsers: nv, armCount: kv,
                                                       difference: c.difference, interval: interval(look, lowerIsBetter: metric.lowerIsBetter),
                                                       level: level, mixingVariance: look.tau2, test: OneSidedSequentialTest.name,
                                                       minimumHarm: config.minimumHarm,
                                                       stratified: .init(controlRate: c.control, armRate: c.treatment, periods: periods))
                    finding.harmful = look.look.rejected
                } else {
                    let control = try Proportion(count: kc, total: nc), arm = try Proportion(count: kv, total: nv)
                    let tau2 = try mixingVariance(e, arm: finding.arm, metric: metric.name, controlRate: control.rate,
                                                  minimumHarm: config.minimumHarm, scales: scales, now: now)
                    let look = try test(harm: metric.lowerIsBetter ? arm.rate - control.rate : control.rate - arm.rate,
                                        variance: control.varianceOfRate + arm.varianceOfRate, mixingVariance: tau2, level: level)
                    finding.figures = SafeguardFigures(controlUsers: nc, controlCount: kc, armUsers: nv, armCount: kv,
                                                       difference: arm.rate - control.rate, interval: interval(look, lowerIsBetter: metric.lowerIsBetter),
                                                       level: level, mixingVariance: look.tau2, test: OneSidedSequentialTest.name,
                                                       minimumHarm: config.minimumHarm)
                    finding.harmful = look.look.rejected
                }
                findings.append(finding)
            }
        }
        return findings
    }

    /// τ² of (arm, metric): the one kept in `scales`, or, at the first look that tests the pair, the one
    /// `minimum_harm` and the control's rate now give, kept for every later look (whoever kept one first wins).
    static func mixingVariance(_ e: Experiment, arm: String, metric: String, controlRate: Double, minimumHarm: Double,
                               scales: any SafeguardScaleStore, now: Date) throws -> Double {
        let fresh = SafeguardScale(experiment: e.id, arm: arm, metric: metric,
                                   mixingVariance: OneSidedSequentialTest.mixingVariance(controlRate: controlRate, minimumHarm: minimumHarm),
                                   controlRate: controlRate, fixedAt: Timestamp(now))
        return try scales.fixSafeguardScale(fresh).mixingVariance
    }

    /// One look of the one-sided test at `level` with mixing variance τ².
    static func test(harm: Double, variance: Double, mixingVariance tau2: Double,
                     level: Double) throws -> (look: OneSidedSequentialTest.Look, tau2: Double) {
        var test = try OneSidedSequentialTest(mixingVariance: tau2, alpha: level)
        return (test.update(difference: harm, variance: variance), tau2)
    }

    /// The one-sided interval of arm − control: [bound, 1] when a higher rate is the harm, [−1, −bound] otherwise.
    static func interval(_ t: (look: OneSidedSequentialTest.Look, tau2: Double), lowerIsBetter: Bool) -> [Double] {
        lowerIsBetter ? [t.look.lowerBound, 1] : [-1, -t.look.lowerBound]
    }
}
