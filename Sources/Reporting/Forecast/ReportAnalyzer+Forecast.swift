import ExperimentDefinitions
import Foundation
import Statistics

extension ReportAnalyzer {
    /// What the forecast adds to a report: each arm's forecast and, when the file names
    /// `revenue_per_user_forecast_dN` (primary or secondary), that metric per variant (the forecast and
    /// its 90% interval) and per treatment a comparison read from the bootstrap draws: the difference of
    /// forecasts with its interval at the report's level, p = 2·min(share of draws ≤ 0, share ≥ 0),
    /// chance to win, expected loss.
    struct ForecastFigures {
        var arms: [ArmForecast]?
        /// The forecast metrics the file names, in its order.
        var metrics: [Metric] = []
        /// Per variant, its value of each of `metrics`.
        var values: [[MetricValue]]
        /// Per metric of `metrics`, the treatments against the control, Holm-adjusted.
        var comparisons: [ComparisonResult] = []
    }

    /// `metrics`: the report's other metrics (a forecast metric among them is not added twice).
    static func forecastFigures(_ acc: ReportAccumulator, metrics: [Metric], variants: [String], alpha: Double) throws -> ForecastFigures {
        let forecasts = try ForecastAnalysis.forecast(acc.forecast)
        var out = ForecastFigures(arms: forecasts, values: Array(repeating: [], count: variants.count))
        let exp = acc.experiment
        for metric in [exp.metrics.primary] + exp.metrics.secondary where metric.isForecast && !metrics.contains(metric) && !out.metrics.contains(metric) {
            out.metrics.append(metric)
            for v in variants.indices {
                let f = forecasts?[v]
                let read = f?.figures(for: metric)
                out.values[v].append(MetricValue(
                    metric: metric, count: acc.forecast.payers[v], denominator: acc.forecast.users[v], rate: read?.value, ci: read?.ci,
                    nullReason: f == nil ? "no arm has a payer who has finished the trial yet" : f?.nullReason))
            }
            var rows: [ComparisonResult] = []
            for v in variants.indices.dropFirst() {
                rows.append(try compareForecasts(metric, control: forecasts?[0], variant: forecasts?[v], key: variants[v], alpha: alpha))
            }
            try ComparisonResult.adjustHolm(&rows)
            out.comparisons += rows
        }
        return out
    }

    static func compareForecasts(_ m: Metric, control: ArmForecast?, variant: ArmForecast?, key: String, alpha: Double) throws -> ComparisonResult {
        var c = ComparisonResult(variant: key, metric: m, test: "bootstrap")
        guard let control, let variant, let diff = try ForecastAnalysis.difference(control: control, variant: variant, metric: m, level: 1 - alpha) else {
            let reason = control?.nullReason.map { "the control has no forecast: \($0)" } ?? variant?.nullReason.map { "this variant has no forecast: \($0)" }
                ?? "no arm has a payer who has finished the trial yet"
            for field in ["absolute_diff", "absolute_ci", "relative_lift", "relative_ci", "p_value", "chance_to_win", "expected_loss"] { c.nullReasons[field] = reason }
            return c
        }
        let controlFigures = control.figures(for: m), variantFigures = variant.figures(for: m)
        let draws = zip(variantFigures.draws, controlFigures.draws).map { $0 - $1 }
        let n = Double(draws.count)
        c.absoluteDiff = diff.0
        c.absoluteCI = diff.1
        let below = Double(draws.filter { $0 <= 0 }.count), above = Double(draws.filter { $0 >= 0 }.count)
        c.pValue = min(1, 2 * min(below, above) / n)
        c.chanceToWin = Double(draws.filter { $0 > 0 }.count) / n
        c.expectedLoss = draws.reduce(0) { $0 + max(-$1, 0) } / n
        c.expectedLossIfShipped = c.expectedLoss
        if let base = controlFigures.value, base > 0, let t = variantFigures.value {
            c.relativeLift = t / base - 1
            let ratios = zip(variantFigures.draws, controlFigures.draws).compactMap { $1 > 0 ? $0 / $1 - 1 : nil }
            if ratios.count == draws.count {
                let (lower, upper) = try RevenueForecast.interval(ratios, level: 1 - alpha)
                c.relativeCI = Bounds(lower, upper)
            } else {
                c.nullReasons["relative_ci"] = "some bootstrap draws forecast no revenue for the control"
            }
        } else {
            c.nullReasons["relative_lift"] = "the control's forecast is 0, so a relative change is undefined"
            c.nullReasons["relative_ci"] = c.nullReasons["relative_lift"]
        }
        return c
    }
}
