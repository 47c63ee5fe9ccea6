import Events
import ExperimentDefinitions
import Foundation

/// The report as GitHub-flavoured Markdown: verdict, health, then pipe tables.
/// Text from experiment files and events is escaped so it cannot break a table or inject HTML.
public enum MarkdownReportRenderer {
    public static func render(_ r: Report) -> String {
        var out = "# \(esc(r.experimentName))\n\n"
        out += "`\(code(r.experimentID))` · generated \(Wording.date(r.generatedAt)) · data as of \(Wording.date(r.asOf)) · "
        out += "\(Wording.count(r.users)) users · \(r.confidenceLabel) intervals · primary metric: **\(Wording.title(r.primaryMetric))**\n\n"
        if let h = r.hypothesis { out += "> \(esc(h))\n\n" }

        var verdict = "## Verdict: \(r.decision.verdict.rawValue.replacingOccurrences(of: "_", with: " "))"
        if let w = r.decision.winner { verdict += " `\(code(w))`" }
        out += verdict + "\n\n"
        for reason in r.decision.reasons { out += "- \(esc(reason))\n" }
        out += "\n\(esc(Wording.eta(r)))\n"

        out += "\n## Health\n\n"
        for h in r.health {
            let mark = switch h.level {
            case .alert: "🛑"
            case .warning: "⚠️"
            case .info: "ℹ️"
            case .ok: "✅"
            }
            out += "- \(mark) \(esc(h.message))\n"
        }

        if !r.safeguards.isEmpty {
            out += "\n## Safeguards\n\n"
            for s in r.safeguards { out += "- \(s.inForce ? "🛑" : "↩️") \(esc(Wording.safeguard(s)))\n" }
        }

        out += "\n## Metrics by variant\n\nRate and \(r.confidenceLabel) interval.\n\n"
        out += "| metric | " + r.variants.map { esc($0.key) + ($0.isControl ? " (control)" : "") }.joined(separator: " | ") + " |\n"
        out += "|---|" + r.variants.map { _ in "---:" }.joined(separator: "|") + "|\n"
        out += "| users | " + r.variants.map { Wording.count($0.users) }.joined(separator: " | ") + " |\n"
        for metric in r.metrics {
            out += "| \(Wording.title(metric)) | " + r.variants.map { v in
                guard let m = v.metric(metric), m.rate != nil else { return "n/a" }
                return "\(Wording.value(metric, m.rate, in: r.currency)) \(Wording.interval(metric, m.ci, in: r.currency))"
            }.joined(separator: " | ") + " |\n"
        }

        if let note = Wording.capNote(r) { out += "\n\(esc(note))\n" }

        if !r.comparisons.isEmpty {
            out += "\n## Against the control (`\(code(r.control.key))`)\n\n"
            out += "| variant | metric | difference | lift | p | p (Holm) | chance better | expected loss |\n"
            out += "|---|---|---:|---:|---:|---:|---:|---:|\n"
            for c in r.comparisons {
                let mark = c.reading.clearlyBetter ? " ✅" : c.reading.clearlyWorse ? " 🔻" : ""
                let metricName = Wording.directedTitle(c.metric) + (c.metric == r.primaryMetric ? " (primary)" : "")
                out += "| \(esc(c.variant)) | \(metricName) | \(Wording.difference(c.metric, c.absoluteDiff, in: r.currency)) \(Wording.differenceInterval(c.metric, c.absoluteCI, in: r.currency))\(mark) "
                out += "| \(Wording.signedPercent(c.relativeLift)) \(Wording.liftInterval(c.relativeCI)) | \(Wording.pValue(c.pValue)) "
                out += "| \(Wording.pValue(c.pValueAdjusted)) | \(Wording.probability(c.chanceToBeBetter)) "
                out += "| \(Wording.loss(c.metric, c.expectedLossIfShipped, in: r.currency)) |\n"
            }
            out += "\n" + Wording.legend(r, better: "✅", worse: "🔻").map { "\(esc($0))\n" }.joined(separator: "\n")
            if let note = SegmentRows.adjustmentNote(r) {
                out += "\n\(esc(note))\n\n| variant | metric | adjusted | unadjusted | variance reduction | strata |\n|---|---|---:|---:|---:|---:|\n"
                for c in SegmentRows.adjusted(r) {
                    guard let a = c.adjustment else { continue }
                    out += "| \(esc(c.variant)) | \(Wording.title(c.metric)) | \(Wording.difference(c.metric, c.absoluteDiff, in: r.currency)) \(Wording.differenceInterval(c.metric, c.absoluteCI, in: r.currency)) "
                    out += "| \(Wording.difference(c.metric, a.unadjusted.absoluteDiff, in: r.currency)) \(Wording.differenceInterval(c.metric, a.unadjusted.absoluteCI, in: r.currency)) "
                    out += "| \(SegmentRows.varianceReduction(a)) | \(a.strata) |\n"
                }
            }
            if r.sequential {
                out += "\nAlways-valid (sequential) results, safe to check every day:\n\n| variant | metric | p (always valid) | interval (always valid) |\n|---|---|---:|---:|\n"
                for c in r.comparisons where c.sequentialPValue != nil {
                    out += "| \(esc(c.variant)) | \(Wording.title(c.metric)) | \(Wording.pValue(c.sequentialPValue)) | \(Wording.differenceInterval(c.metric, c.sequentialCI, in: r.currency)) |\n"
                }
            }
        }

        for d in r.segments {
            out += "\n## By \(esc(d.dimension))\n\n_\(SegmentDimension.exploratoryNote)_\n\n"
            out += "| value | users | metric | variant | difference | lift | p (Holm) |\n|---|---:|---|---|---:|---:|---:|\n"
            for row in SegmentRows.rows(d, primary: r.primaryMetric, in: r.currency) {
                let mark = row.reading.clearlyBetter ? " ✅" : row.reading.clearlyWorse ? " 🔻" : ""
                out += "| \(esc(row.value)) | \(row.users) | \(esc(row.metric)) | \(esc(row.variant)) | \(row.difference) \(row.interval)\(mark) | \(row.lift) | \(row.pHolm) |\n"
            }
            out += "\n" + SegmentRows.heterogeneityLines(d).map { "- \(esc($0))" }.joined(separator: "\n") + "\n"
            for sentence in d.differenceSentences { out += "\n**\(esc(sentence))**\n" }
            out += "\n\(esc(SegmentRows.poolingNote(d)))\n"
        }

        if let forecasts = r.forecast {
            out += "\n## Forecast\n\n\(esc(Wording.forecastHeading(forecasts).prefix(1).uppercased() + Wording.forecastHeading(forecasts).dropFirst())).\n\n"
            for f in forecasts { out += "- \(esc(Wording.forecastLine(f, in: r.currency)))\n" }
            out += "\n\(esc(Wording.forecastNote))\n"
        }
        out += "\n## Subscriptions still active\n\nKaplan–Meier survival from trial start to cancel.\n\n"
        out += "| variant | trial starters | cancels | " + r.survival.days.map { "day \($0)" }.joined(separator: " | ") + " |\n"
        out += "|---|---:|---:|" + r.survival.days.map { _ in "---:" }.joined(separator: "|") + "|\n"
        for curve in r.survival.curves {
            let cells = curve.atDays?.map { Wording.percent($0, digits: 1) } ?? r.survival.days.map { _ in "n/a" }
            out += "| \(esc(curve.key)) | \(Wording.count(curve.trialStarters)) | \(Wording.count(curve.cancels)) | " + cells.joined(separator: " | ") + " |\n"
        }
        out += "\nLog-rank test \(Wording.pEquals(r.survival.logRankP))"
        if let reason = r.survival.nullReason { out += " (\(esc(reason)))" }
        out += "\n"

        for split in r.copySources {
            out += "\n## Copy sources of `\(code(split.variant))`\n\n| source | users | paid | paid conversion |\n|---|---:|---:|---:|\n"
            for s in split.sources {
                out += "| \(esc(s.source)) | \(Wording.count(s.users)) | \(Wording.count(s.paid)) | \(Wording.percent(s.paidRate)) |\n"
            }
            if !split.fallbackReasons.isEmpty {
                out += "\nWhy lines fell back: " + split.fallbackReasons.prefix(5).map { "\(esc($0.reason)) (\(Wording.count($0.count)))" }.joined(separator: ", ") + "\n"
            }
        }
        return out
    }

    /// Escapes what Markdown and HTML would read as syntax in text from experiment files or events:
    /// emphasis, code, links, table pipes, strikethrough and tags. Brackets, parentheses, `#`, `+` and `!`
    /// mid-line are plain text in GitHub and chat Markdown, so a pasted report reads as written.
    static func esc(_ s: String) -> String {
        var out = ""
        let chars = Array(TextReportRenderer.clean(s))
        for (i, ch) in chars.enumerated() {
            switch ch {
            // "<" could open a tag and "&" an entity; ">" only quotes at the start of a line, where this text never is.
            case "&" where i + 1 < chars.count && (chars[i + 1].isLetter || chars[i + 1] == "#"): out += "&amp;"
            case "<": out += "&lt;"
            // An underscore inside a word (paid_conversion) is never emphasis in GitHub Markdown.
            case "_" where i > 0 && i + 1 < chars.count && (chars[i - 1].isLetter || chars[i - 1].isNumber) && (chars[i + 1].isLetter || chars[i + 1].isNumber):
                out.append(ch)
            case "\\", "`", "*", "_", "[", "]", "|", "~":
                out += "\\" + String(ch)
            default: out.append(ch)
            }
        }
        return out
    }

    /// Text for inside a code span: backticks and pipes cannot be escaped there, so they are replaced.
    static func code(_ s: String) -> String {
        TextReportRenderer.clean(s).replacingOccurrences(of: "`", with: "'").replacingOccurrences(of: "|", with: "¦")
    }
}
