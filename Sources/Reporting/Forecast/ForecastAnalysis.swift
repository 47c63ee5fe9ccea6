import ExperimentDefinitions
import Foundation
import Statistics

/// Each arm's forecast from a `ForecastAccumulator`: the fit per plan period, revenue per user at the
/// horizon and its 90% interval from 1,000 bootstrap draws with a fixed seed.
public enum ForecastAnalysis {
    public static let draws = 1000
    public static let level = 0.9
    /// The bootstrap's fixed seed; each arm draws from its own stream of it.
    public static let seed: UInt64 = 0x5B6_2007
    /// A period's model needs at least this many renewals (payments after the first) to be fitted.
    public static let minimumRenewals = 10

    /// One entry per arm, in experiment order; nil when no arm has a mature payer yet.
    public static func forecast(_ acc: ForecastAccumulator, draws: Int = ForecastAnalysis.draws) throws -> [ArmForecast]? {
        guard acc.payers.contains(where: { $0 > 0 }) else { return nil }
        return try acc.cells.indices.map { v in try arm(v, acc, draws: draws) }
    }

    static func arm(_ v: Int, _ acc: ForecastAccumulator, draws: Int) throws -> ArmForecast {
        let key = acc.experiment.variants[v].key
        let forecast = RevenueForecast(users: acc.cells[v])
        let users = forecast.users
        var entry = ArmForecast(variant: key, horizonDays: acc.horizonDays, users: users)
        guard users > 0 else {
            entry.nullReason = "no user has been exposed long enough to finish the trial yet"
            return entry
        }
        guard acc.payers[v] > 0 else {
            entry.nullReason = "no payers among this arm's \(users) mature users yet"
            return entry
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
                return entry
            }
        }
        let estimate = try forecast.estimate()
        entry.revenuePerUser = estimate.revenuePerUser
        entry.proceedsPerUser = estimate.proceedsPerUser
        entry.model = estimate.models.mapValues { m in ArmForecast.PeriodModel(alpha: m.alpha, beta: m.beta, payers: 0, capped: m.capped) }
        for (period, h) in histories { entry.model[period]?.payers = h.payers }
        let bootstrap = try forecast.bootstrap(draws: draws, seed: seed &+ UInt64(v) &* 0x9E37_79B9_7F4A_7C15)
        entry.draws = bootstrap.revenue
        entry.proceedsDraws = bootstrap.proceeds
        let (lower, upper) = try RevenueForecast.interval(entry.draws, level: level)
        entry.ci = Bounds(lower, upper)
        let (proceedsLower, proceedsUpper) = try RevenueForecast.interval(entry.proceedsDraws, level: level)
        entry.proceedsCI = Bounds(proceedsLower, proceedsUpper)
        return entry
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
