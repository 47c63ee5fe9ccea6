import Events
import ExperimentDefinitions
import Foundation

/// The report as CSV (RFC 4180): one row per (variant, metric), the comparison with the
/// control in the same row (empty for the control). Rates are fractions, as in the JSON; `cap` is the
/// per-user revenue cap a revenue metric used (empty when uncapped or not revenue); `money` names a money
/// metric's kind: `gross`, `proceeds` or `proceeds before tax`; `discount_text`, on a `--by country`
/// row, the claims the arms showed in that country's storefront where they differ. `null_reasons`
/// stays the last column.
public enum CSVReportRenderer {
    public static let header = [
        "experiment", "variant", "is_control", "metric", "users", "count", "denominator", "rate", "ci_lower", "ci_upper",
        "absolute_diff", "absolute_ci_lower", "absolute_ci_upper", "relative_lift", "relative_ci_lower", "relative_ci_upper",
        "p_value", "p_value_adjusted", "chance_to_win", "expected_loss", "sequential_p_value", "cap",
        "dimension", "value", "discount_text", "variance_reduction", "unadjusted_absolute_diff", "unadjusted_p_value",
        "money", "direction", "currency", "null_reasons",
    ]

    public static func render(_ r: Report) -> String {
        var out = header.joined(separator: ",") + "\r\n"
        for v in r.variants {
            for m in v.metrics {
                let c = v.isControl ? nil : r.comparison(v.key, m.metric)
                let fields: [String] = [
                    text(r.experimentID), text(v.key), v.isControl ? "true" : "false", m.metric.name, String(v.users), String(m.count),
                    String(m.denominator), num(m.rate), num(m.ci?.lower), num(m.ci?.upper),
                    num(c?.absoluteDiff), num(c?.absoluteCI?.lower), num(c?.absoluteCI?.upper),
                    num(c?.relativeLift), num(c?.relativeCI?.lower), num(c?.relativeCI?.upper),
                    num(c?.pValue), num(c?.pValueAdjusted), num(c?.chanceToWin), num(c?.expectedLoss), num(c?.sequentialPValue),
                    num(m.cap.map(Wording.cents)), "", "", "", num(c?.adjustment?.varianceReduction), num(c?.adjustment?.unadjusted.absoluteDiff),
                    num(c?.adjustment?.unadjusted.pValue),
                    Wording.moneyKind(m.metric, r), m.metric.direction, r.currency, text(nullReasons(m, c)),
                ]
                out += fields.joined(separator: ",") + "\r\n"
            }
        }
        // Segments (`--by`): one row per (dimension, value, metric, variant), the cell's comparison; the
        // per-variant columns other than users are empty, `p_value_adjusted` is Holm across the cells.
        for d in r.segments {
            for cell in d.cells {
                for c in cell.comparisons {
                    let users = r.variants.firstIndex { $0.key == c.variant }.map { cell.usersByVariant[$0] }
                    let fields: [String] = [
                        text(r.experimentID), text(c.variant), "false", c.metric.name, users.map(String.init) ?? "", "", "", "", "", "",
                        num(c.absoluteDiff), num(c.absoluteCI?.lower), num(c.absoluteCI?.upper),
                        num(c.relativeLift), num(c.relativeCI?.lower), num(c.relativeCI?.upper),
                        num(c.pValue), num(c.pValueAdjusted), num(c.chanceToWin), num(c.expectedLoss), "", num(c.cap.map(Wording.cents)),
                        text(d.dimension), text(cell.value),
                        text(StorefrontClaims.country(d, cell).flatMap {
                            StorefrontClaims.beside(r.storefrontClaims, country: $0, variant: c.variant, control: r.control.key)
                        } ?? ""), "", "", "",
                        Wording.moneyKind(c.metric, r), c.metric.direction, r.currency, text(nullReasons(nil, c)),
                    ]
                    out += fields.joined(separator: ",") + "\r\n"
                }
            }
        }
        // The forecast, gross and proceeds, one row per variant each, unless the file names the metric (then the rows above hold it).
        if let forecasts = r.forecast {
            let horizon = forecasts[0].horizonDays
            for metric in [Metric.forecast(horizonDays: horizon), Metric(name: "proceeds_per_user_forecast_d\(horizon)")].compactMap({ $0 })
            where !r.metrics.contains(metric) {
                for (v, f) in zip(r.variants, forecasts) {
                    let read = f.figures(for: metric)
                    var fields = [text(r.experimentID), text(v.key), v.isControl ? "true" : "false", metric.name, String(v.users), "",
                                  String(f.users), num(read.value), num(read.ci?.lower), num(read.ci?.upper)]
                    fields += Array(repeating: "", count: header.count - fields.count)
                    fields[header.count - 4] = Wording.moneyKind(metric, r)
                    fields[header.count - 3] = metric.direction
                    fields[header.count - 2] = r.currency
                    fields[header.count - 1] = text(f.nullReason ?? "")
                    out += fields.joined(separator: ",") + "\r\n"
                }
            }
        }
        // The effect over time: one row per (day, treatment), `dimension` "timeline" and `value` the day;
        // `users` the arm's users counted by then, `absolute_*` its difference to the control as of that day's end.
        if let t = r.timeline {
            for p in t.points {
                for c in p.comparisons {
                    let users = t.variants.firstIndex(of: c.variant).map { p.users[$0] }
                    var fields = [text(r.experimentID), text(c.variant), "false", t.metric.name, users.map(String.init) ?? "", "", "", "", "", "",
                                  num(c.absoluteDiff), num(c.absoluteCI?.lower), num(c.absoluteCI?.upper)]
                    fields += Array(repeating: "", count: header.count - fields.count)
                    fields[header.firstIndex(of: "dimension")!] = "timeline"
                    fields[header.firstIndex(of: "value")!] = RFC3339.formatDay(p.date)
                    fields[header.count - 4] = Wording.moneyKind(t.metric, r)
                    fields[header.count - 3] = t.metric.direction
                    fields[header.count - 2] = r.currency
                    let reason = c.absoluteDiff == nil ? c.nullReasons["absolute_diff"].map { "absolute_diff: \($0)" } ?? "" : ""
                    fields[header.count - 1] = text(reason)
                    out += fields.joined(separator: ",") + "\r\n"
                }
            }
        }
        // Safeguard stops: one row each, `dimension` "safeguard" and `value` the action, time and
        // reset; the arm's mature count, denominator and rate; `absolute_*` the stop's difference
        // and always-valid interval.
        for s in r.safeguards {
            let f = s.figures
            let value = "\(s.action.rawValue) at \(RFC3339.format(s.stoppedAt.date))" + (s.resetAt.map { "; reset at \(RFC3339.format($0.date))" } ?? "")
            let fields: [String] = [
                text(r.experimentID), text(s.arm), "false", s.metric, "", String(f.armCount), String(f.armUsers), num(f.armRate), "", "",
                num(f.difference), num(f.interval.first), num(f.interval.last), "", "", "",
                "", "", "", "", "", "",
                "safeguard", text(value), "", "", "", "", "",
                Metric(name: s.metric).map(\.direction) ?? "", r.currency, "",
            ]
            out += fields.joined(separator: ",") + "\r\n"
        }
        return out
    }

    /// Why this row's empty figures are empty, in the JSON's words: `field: reason` joined by "; ".
    static func nullReasons(_ m: MetricValue?, _ c: ComparisonResult?) -> String {
        var parts: [String] = []
        if let reason = m?.nullReason { parts.append("rate: \(reason)") }
        for (field, reason) in (m?.nullReasons ?? [:]).sorted(by: { $0.key < $1.key }) where reason != m?.nullReason { parts.append("\(field): \(reason)") }
        if let c {
            // One entry per distinct reason, naming every field it explains.
            var byReason: [(String, [String])] = []
            for (field, reason) in c.nullReasons.sorted(by: { $0.key < $1.key }) {
                if let i = byReason.firstIndex(where: { $0.0 == reason }) { byReason[i].1.append(field) } else { byReason.append((reason, [field])) }
            }
            parts += byReason.map { "\($0.1.joined(separator: ", ")): \($0.0)" }
        }
        return parts.joined(separator: "; ")
    }

    static func num(_ x: Double?) -> String {
        guard let x, x.isFinite else { return "" }
        return JSONValue.format(x)
    }

    /// Quotes when needed, and defuses spreadsheet formulas (a leading `=`, `+`, `-`, `@`).
    static func text(_ s: String) -> String {
        var s = s
        if let first = s.first, "=+-@\t\r".contains(first) { s = "'" + s }
        guard s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return s }
        return "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
