import Events
import ExperimentDefinitions
import Foundation

/// The report for a terminal: the verdict and health first, then aligned tables.
/// Colour only when `color` is true (the caller checks for a terminal and `NO_COLOR`).
public enum TextReportRenderer {
    static let green = "32", red = "31", yellow = "33", bold = "1", dim = "2"

    public static func render(_ r: Report, color: Bool) -> String {
        func paint(_ s: String, _ code: String) -> String { color ? "\u{1B}[\(code)m\(s)\u{1B}[0m" : s }
        var out = paint(clean(r.experimentName), bold) + "  (\(clean(r.experimentID)))\n"
        out += "Generated \(Wording.date(r.generatedAt)); data as of \(Wording.date(r.asOf)); "
        out += "\(Wording.count(r.users)) users; \(r.confidenceLabel) intervals; primary metric: \(Wording.title(r.primaryMetric))\n"
        if let h = r.hypothesis { out += "Hypothesis: \(clean(h))\n" }
        out += "\n"

        let verdictColor: String = switch r.decision.verdict {
        case .ship: green
        case .stop: red
        case .keepRunning, .inconclusive: yellow
        }
        var verdict = "VERDICT: " + r.decision.verdict.rawValue.uppercased().replacingOccurrences(of: "_", with: " ")
        if let w = r.decision.winner { verdict += " \"\(clean(w))\"" }
        out += paint(verdict, "1;" + verdictColor) + "\n"
        for reason in r.decision.reasons { out += "  - \(clean(reason))\n" }
        out += "  \(clean(Wording.eta(r)))\n"
        out += "\n" + paint("HEALTH", bold) + "\n"
        for h in r.health {
            let mark: String = switch h.level {
            case .alert: paint("[alert]", red)
            case .warning: paint("[warn] ", yellow)
            case .info: paint("[info] ", dim)
            case .ok: paint("[ok]   ", green)
            }
            out += "  \(mark) \(clean(h.message))\n"
        }

        if !r.safeguards.isEmpty {
            out += "\n" + paint("SAFEGUARDS", bold) + "\n"
            for s in r.safeguards { out += "  " + paint(s.inForce ? "[stop] " : "[reset]", s.inForce ? red : dim) + " \(clean(Wording.safeguard(s)))\n" }
        }

        out += "\n" + paint("METRICS BY VARIANT", bold) + " (rate [\(r.confidenceLabel) interval])\n"
        var table = TextTable(["metric"] + r.variants.map { clean($0.key) + ($0.isControl ? " (control)" : "") })
        table.add(["users"] + r.variants.map { Wording.count($0.users) })
        for metric in r.metrics {
            table.add([Wording.title(metric)] + r.variants.map { v in
                guard let m = v.metric(metric) else { return "" }
                guard m.rate != nil else { return "n/a" }
                return "\(Wording.value(metric, m.rate, in: r.currency)) \(Wording.interval(metric, m.ci, in: r.currency))"
            })
        }
        out += table.render(color: color)
        if let note = Wording.capNote(r) { out += "  \(note)\n" }

        if !r.comparisons.isEmpty {
            out += "\n" + paint("AGAINST THE CONTROL", bold) + " (\"\(clean(r.control.key))\")\n"
            var comp = TextTable(["variant", "metric", "difference", "interval", "lift", "lift interval", "p", "p (Holm)", "chance better", "exp. loss"],
                                 aligns: [.left, .left, .right, .right, .right, .right, .right, .right, .right, .right])
            for c in r.comparisons {
                let tone: String? = c.reading.clearlyBetter ? green : c.reading.clearlyWorse ? red : nil
                let mark = c.reading.clearlyBetter ? " ▲" : c.reading.clearlyWorse ? " ▼" : ""
                comp.add([
                    TextTable.Cell(text: clean(c.variant)),
                    TextTable.Cell(text: Wording.directedTitle(c.metric) + (c.metric == r.primaryMetric ? " *" : "")),
                    TextTable.Cell(text: Wording.difference(c.metric, c.absoluteDiff, in: r.currency) + mark, color: tone),
                    TextTable.Cell(text: Wording.differenceInterval(c.metric, c.absoluteCI, in: r.currency)),
                    TextTable.Cell(text: Wording.signedPercent(c.relativeLift), color: tone),
                    TextTable.Cell(text: Wording.liftInterval(c.relativeCI)),
                    TextTable.Cell(text: Wording.pValue(c.pValue)),
                    TextTable.Cell(text: Wording.pValue(c.pValueAdjusted)),
                    TextTable.Cell(text: Wording.probability(c.chanceToBeBetter)),
                    TextTable.Cell(text: Wording.loss(c.metric, c.expectedLossIfShipped, in: r.currency)),
                ])
            }
            out += comp.render(color: color)
            out += "  * primary metric.\n" + Wording.legend(r).map { "  \($0)\n" }.joined()
            if let note = SegmentRows.adjustmentNote(r) {
                out += "\n  \(clean(note))\n"
                var adj = TextTable(["variant", "metric", "adjusted", "interval", "unadjusted", "interval", "variance reduction", "strata"],
                                    aligns: [.left, .left, .right, .right, .right, .right, .right, .right])
                for c in SegmentRows.adjusted(r) {
                    guard let a = c.adjustment else { continue }
                    adj.add([clean(c.variant), Wording.title(c.metric), Wording.difference(c.metric, c.absoluteDiff, in: r.currency),
                             Wording.differenceInterval(c.metric, c.absoluteCI, in: r.currency), Wording.difference(c.metric, a.unadjusted.absoluteDiff, in: r.currency),
                             Wording.differenceInterval(c.metric, a.unadjusted.absoluteCI, in: r.currency), SegmentRows.varianceReduction(a), String(a.strata)])
                }
                out += adj.render(color: color)
            }
            if r.sequential {
                out += "\n  Always-valid (sequential) results, safe to check every day:\n"
                var seq = TextTable(["variant", "metric", "p (always valid)", "interval (always valid)"], aligns: [.left, .left, .right, .right])
                for c in r.comparisons where c.sequentialPValue != nil {
                    seq.add([clean(c.variant), Wording.title(c.metric), Wording.pValue(c.sequentialPValue), Wording.differenceInterval(c.metric, c.sequentialCI, in: r.currency)])
                }
                out += seq.render(color: color)
            }
        }

        for d in r.segments {
            out += "\n" + paint("BY \(clean(d.dimension).uppercased())", bold) + " (exploratory: segments never change the verdict)\n"
            var t = TextTable(["value", "users", "metric", "variant", "difference", "interval", "lift", "p (Holm)"],
                              aligns: [.left, .right, .left, .left, .right, .right, .right, .right])
            for row in SegmentRows.rows(d, primary: r.primaryMetric, in: r.currency) {
                let tone: String? = row.reading.clearlyBetter ? green : row.reading.clearlyWorse ? red : nil
                t.add([TextTable.Cell(text: clean(row.value)), TextTable.Cell(text: row.users), TextTable.Cell(text: row.metric),
                       TextTable.Cell(text: clean(row.variant)), TextTable.Cell(text: row.difference, color: tone),
                       TextTable.Cell(text: row.interval), TextTable.Cell(text: row.lift, color: tone), TextTable.Cell(text: row.pHolm)])
            }
            out += t.render(color: color)
            for line in SegmentRows.heterogeneityLines(d) { out += "  \(clean(line))\n" }
            for sentence in d.differenceSentences { out += "  " + paint(clean(sentence), yellow) + "\n" }
            out += "  \(SegmentRows.poolingNote(d))\n  \(SegmentDimension.exploratoryNote)\n"
        }

        if let forecasts = r.forecast {
            out += "\n" + paint("FORECAST", bold) + " (\(Wording.forecastHeading(forecasts)))\n"
            for f in forecasts { out += "  \(clean(Wording.forecastLine(f, in: r.currency)))\n" }
            out += "  \(Wording.forecastNote)\n"
        }
        out += "\n" + paint("SUBSCRIPTIONS STILL ACTIVE", bold) + " (Kaplan-Meier, from trial start to cancel)\n"
        var surv = TextTable(["variant", "trial starters", "cancels"] + r.survival.days.map { "day \($0)" })
        for curve in r.survival.curves {
            surv.add([clean(curve.key), Wording.count(curve.trialStarters), Wording.count(curve.cancels)]
                     + (curve.atDays?.map { Wording.percent($0, digits: 1) } ?? r.survival.days.map { _ in "n/a" }))
        }
        out += surv.render(color: color)
        out += "  Log-rank test \(Wording.pEquals(r.survival.logRankP))"
        if let reason = r.survival.nullReason { out += " (\(clean(reason)))" }
        out += "\n"

        for split in r.copySources {
            out += "\n" + paint("COPY SOURCES OF \"\(clean(split.variant))\"", bold) + "\n"
            var t = TextTable(["source", "users", "share", "paid", "paid conversion"])
            let total = split.sources.reduce(0) { $0 + $1.users }
            for s in split.sources {
                t.add([clean(s.source), Wording.count(s.users), Wording.percent(total > 0 ? Double(s.users) / Double(total) : nil, digits: 1),
                       Wording.count(s.paid), Wording.percent(s.paidRate)])
            }
            out += t.render(color: color)
            if !split.fallbackReasons.isEmpty {
                out += "  Why lines fell back: " + split.fallbackReasons.prefix(5).map { "\(clean($0.reason)) (\(Wording.count($0.count)))" }.joined(separator: ", ") + "\n"
            }
        }
        return out
    }

    /// Strips control characters (ANSI escapes included) from text that came from files or events.
    static func clean(_ s: String) -> String {
        String(String.UnicodeScalarView(s.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F || (0x80...0x9F).contains($0.value) ? "?" : $0 }))
    }
}
