import ExperimentDefinitions
import Foundation
import Statistics

/// Each arm's forecast from a `ForecastAccumulator`: the fit per plan period (sBG or bdw), revenue per
/// user at the horizon and its 90% interval from 1,000 bootstrap draws with a fixed seed.
public enum ForecastAnalysis {
    public static let draws = 1000
    public static let level = 0.9
    /// The bootstrap's fixed seed; each arm draws from its own stream of it.
    public static let seed: UInt64 = 0x5B6_2007
    /// A period's model needs at least this many renewals (payments after the first) to be fitted.
    public static let minimumRenewals = 10

    /// One entry per arm, in experiment order; nil when no arm has a mature payer yet.
    ///
    /// Per plan period one renewal model serves every fitted arm: the bdw when the likelihood-ratio test
    /// over the arms' fits prefers it at 0.05, else the sBG (`RenewalModelChoice`); the bootstrap draws
    /// of all arms are made together so that each draw chooses again.
    public static func forecast(_ acc: ForecastAccumulator, draws: Int = ForecastAnalysis.draws) throws -> [ArmForecast]? {
        guard acc.payers.contains(where: { $0 > 0 }) else { return nil }
        var entries: [ArmForecast] = []
        var fitted: [(arm: Int, forecast: RevenueForecast)] = []
        for v in acc.cells.indices {
            let (entry, forecast) = arm(v, acc)
            entries.append(entry)
            if let forecast { fitted.append((v, forecast)) }
        }
        guard !fitted.isEmpty else { return entries }
        let forecasts = fitted.map(\.forecast)
        let choices = try RevenueForecast.chooseModels(forecasts)
        let bootstrap = try RevenueForecast.bootstrap(forecasts, draws: draws,
                                                      seeds: fitted.map { seed &+ UInt64($0.arm) &* 0x9E37_79B9_7F4A_7C15 }, start: choices)
        for (j, (v, forecast)) in fitted.enumerated() {
            var entry = entries[v]
            let estimate = try forecast.estimate(models: RevenueForecast.models(choices, arm: j))
            entry.revenuePerUser = estimate.revenuePerUser
            entry.proceedsPerUser = estimate.proceedsPerUser
            let histories = forecast.histories()
            for (period, model) in estimate.models {
                let payers = histories[period]?.payers ?? 0
                switch model {
                case .sbg(let m): entry.model[period] = .init(alpha: m.alpha, beta: m.beta, payers: payers, capped: m.capped)
                case .bdw(let m):
                    entry.model[period] = .init(alpha: m.alpha, beta: m.beta, payers: payers, capped: m.alpha + m.beta >= forecast.cap * (1 - 1e-9), name: "bdw", c: m.c)
                }
            }
            for name in [RenewalModelChoice.Name.sbg, .bdw] {
                let forced = RevenueForecast.models(choices, arm: j, forcing: name)
                // A forced model exists only where it was fitted (every period, for the bdw).
                if name == .sbg || choices.values.allSatisfy({ $0.bdw?[j] != nil }) {
                    entry.modelForecasts[name.rawValue] = try forecast.estimate(models: forced).revenuePerUser
                }
            }
            entry.draws = bootstrap[j].revenue
            entry.proceedsDraws = bootstrap[j].proceeds
            let (lower, upper) = try RevenueForecast.interval(entry.draws, level: level)
            entry.ci = Bounds(lower, upper)
            let (proceedsLower, proceedsUpper) = try RevenueForecast.interval(entry.proceedsDraws, level: level)
            entry.proceedsCI = Bounds(proceedsLower, proceedsUpper)
            entries[v] = entry
        }
        return entries
    }

    /// Arm `v`'s entry with its null reasons, and its forecast when it has enough to be fitted.
    static func arm(_ v: Int, _ acc: ForecastAccumulator) -> (ArmForecast, RevenueForecast?) {
        let key = acc.experiment.variants[v].key
        let forecast = RevenueForecast(users: acc.cells[v])
        let users = forecast.users
        var entry = ArmForecast(variant: key, horizonDays: acc.horizonDays, users: users)
        guard users > 0 else {
            entry.nullReason = "no user has been exposed long enough to finish the trial yet"
            return (entry, nil)
        }
        guard acc.payers[v] > 0 else {
            entry.nullReason = "no payers among this arm's \(users) mature users yet"
            return (entry, nil)
        }
        if acc.unmatchedPayers[v] > 0 {
            entry.nullReasons["unplaced_payers"] = Wording.unplacedPayers(acc.unmatchedPayers[v])
        }
        let histories = forecast.histories()
        for period in histories.keys.sorted() {
            let h = histories[period]!
            if h.renewals < minimumRenewals || h.churnedPayers == 0 {
                let what = h.renewals < minimumRenewals ? "\(h.renewals) renewal\(h.renewals == 1 ? "" : "s") (at least \(minimumRenewals) needed)"
                    : "no payer who stopped renewing"
                entry.nullReason = "too few renewals to fit: \(ArmForecast.periodWords(period)) payers show \(what)"
                return (entry, nil)
            }
        }
        return (entry, forecast)
    }

    /// The difference treatment − control of two forecasts with the bootstrap interval of the difference
    /// (draw by draw; the arms' draws are independent); nil when either forecast is null.
    public static func difference(control: ArmForecast, variant: ArmForecast, metric: Metric? = nil,
                                  level: Double = ForecastAnalysis.level) throws -> (Double, Bounds)? {
        let metric = metric ?? Metric.forecast(horizonDays: control.horizonDays)!
        let control = control.figures(for: metric), variant = variant.figures(for: metric)
        guard let c = control.value, let t = variant.value, control.draws.count == variant.draws.count, !control.draws.isEmpty else { return nil }
        let diffs = zip(variant.draws, control.draws).map { $0 - $1 }
        let (lower, upper) = try RevenueForecast.interval(diffs, level: level)
        return (t - c, Bounds(lower, upper))
    }
}
