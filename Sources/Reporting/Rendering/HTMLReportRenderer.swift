import Events
import ExperimentDefinitions
import Foundation

/// The report as one self-contained HTML file: no network, no external fonts or scripts,
/// inline SVG charts, a responsive layout for phones. Every text that came from an
/// experiment file or an event goes through `escape`.
public enum HTMLReportRenderer {
    public static func render(_ r: Report) -> String {
        var b = """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
        <title>\(escape(r.experimentName)) — abctl report</title>
        <style>\(css)</style>
        </head>
        <body>
        <main>

        """
        b += "<header><h1>\(escape(r.experimentName))</h1>"
        b += "<p class=\"meta\"><code>\(escape(r.experimentID))</code> · \(escape(r.status)) · generated \(escape(Wording.date(r.generatedAt))) · data as of \(escape(Wording.date(r.asOf))) · "
        b += "\(Wording.count(r.users)) users · \(r.confidenceLabel) intervals · primary metric: <strong>\(Wording.title(r.primaryMetric))</strong></p>"
        if let h = r.hypothesis { b += "<p class=\"hypothesis\">\(escape(h))</p>" }
        b += "</header>\n"

        let verdictClass = r.decision.verdict.rawValue
        b += "<section class=\"verdict \(verdictClass)\"><h2>Verdict: \(escape(r.decision.verdict.rawValue.replacingOccurrences(of: "_", with: " ")))"
        if let w = r.decision.winner { b += " — ship <code>\(escape(w))</code>" }
        b += "</h2><ul>" + r.decision.reasons.map { "<li>\(escape($0))</li>" }.joined() + "</ul><p>\(escape(Wording.eta(r)))</p></section>\n"

        b += "<section><h2>Health</h2><ul class=\"health\">"
        for h in r.health { b += "<li class=\"\(h.level.rawValue)\"><span class=\"badge\">\(h.level.rawValue)</span> \(escape(h.message))</li>" }
        b += "</ul></section>\n"

        if !r.safeguards.isEmpty {
            b += "<section><h2>Safeguards</h2><ul class=\"health\">"
            for s in r.safeguards {
                b += "<li class=\"\(s.inForce ? "alert" : "info")\"><span class=\"badge\">\(s.inForce ? "stop" : "reset")</span> \(escape(Wording.safeguard(s)))</li>"
            }
            b += "</ul></section>\n"
        }

        b += "<section><h2>Metrics by variant</h2><p class=\"muted\">Rate with its \(r.confidenceLabel) interval.</p><div class=\"scroll\"><table><thead><tr><th>metric</th>"
        for v in r.variants { b += "<th>\(escape(v.key))\(v.isControl ? " <span class=\"muted\">(control)</span>" : "")</th>" }
        b += "</tr></thead><tbody><tr><td>users</td>" + r.variants.map { "<td class=\"num\">\(Wording.count($0.users))</td>" }.joined() + "</tr>"
        for metric in r.metrics {
            b += "<tr><td>\(Wording.title(metric))\(metric == r.primaryMetric ? " <span class=\"tag\">primary</span>" : "")</td>"
            for v in r.variants {
                guard let m = v.metric(metric), m.rate != nil else { b += "<td class=\"num\">n/a</td>"; continue }
                b += "<td class=\"num\">\(escape(Wording.value(metric, m.rate, in: r.currency)))<br><span class=\"ci\">\(escape(Wording.interval(metric, m.ci, in: r.currency)))</span>"
                b += "<br><span class=\"ci\">\(Wording.count(m.count)) of \(Wording.count(m.denominator))\(metric.isRevenue ? " paid" : "")</span></td>"
            }
            b += "</tr>"
        }
        b += "</tbody></table></div>"
        if let note = Wording.capNote(r) { b += "<p class=\"muted\">\(escape(note))</p>" }
        b += "</section>\n"

        if !r.comparisons.isEmpty {
            b += "<section><h2>Against the control (<code>\(escape(r.control.key))</code>)</h2>"
            b += "<figure><div class=\"chartbox\">\(SVGCharts.forestPlot(r))</div><figcaption>Relative lift with its \(r.confidenceLabel) interval. For cancel rates, left of zero is good.</figcaption></figure>"
            b += "<div class=\"scroll\"><table><thead><tr><th>variant</th><th>metric</th><th>difference</th><th>lift</th><th>p</th><th>p (Holm)</th><th>chance better</th><th>expected loss</th>"
            if r.sequential { b += "<th>p (always valid)</th><th>interval (always valid)</th>" }
            b += "</tr></thead><tbody>"
            for c in r.comparisons {
                let cls = c.reading.clearlyBetter ? "good" : c.reading.clearlyWorse ? "bad" : ""
                let mark = c.reading.clearlyBetter ? " ▲" : c.reading.clearlyWorse ? " ▼" : ""
                b += "<tr class=\"\(cls)\"><td>\(escape(c.variant))</td><td>\(escape(Wording.directedTitle(c.metric)))</td>"
                b += "<td class=\"num\">\(escape(Wording.difference(c.metric, c.absoluteDiff, in: r.currency) + mark))<br><span class=\"ci\">\(escape(Wording.differenceInterval(c.metric, c.absoluteCI, in: r.currency)))</span></td>"
                b += "<td class=\"num\">\(escape(Wording.signedPercent(c.relativeLift)))<br><span class=\"ci\">\(escape(Wording.liftInterval(c.relativeCI)))</span></td>"
                b += "<td class=\"num\">\(escape(Wording.pValue(c.pValue)))</td><td class=\"num\">\(escape(Wording.pValue(c.pValueAdjusted)))</td>"
                b += "<td class=\"num\">\(escape(Wording.probability(c.chanceToBeBetter)))</td>"
                b += "<td class=\"num\">\(escape(Wording.loss(c.metric, c.expectedLossIfShipped, in: r.currency)))</td>"
                if r.sequential {
                    b += "<td class=\"num\">\(escape(Wording.pValue(c.sequentialPValue)))</td><td class=\"num\">\(escape(Wording.differenceInterval(c.metric, c.sequentialCI, in: r.currency)))</td>"
                }
                b += "</tr>"
            }
            b += "</tbody></table></div>"
            b += Wording.legend(r).map { "<p class=\"muted\">\(escape($0))</p>" }.joined()
            if let note = SegmentRows.adjustmentNote(r) {
                b += "<p class=\"muted\">\(escape(note))</p><div class=\"scroll\"><table><thead><tr><th>variant</th><th>metric</th><th>adjusted</th><th>unadjusted</th><th>variance reduction</th><th>strata</th></tr></thead><tbody>"
                for c in SegmentRows.adjusted(r) {
                    guard let a = c.adjustment else { continue }
                    b += "<tr><td>\(escape(c.variant))</td><td>\(Wording.title(c.metric))</td>"
                    b += "<td class=\"num\">\(escape(Wording.difference(c.metric, c.absoluteDiff, in: r.currency)))<br><span class=\"ci\">\(escape(Wording.differenceInterval(c.metric, c.absoluteCI, in: r.currency)))</span></td>"
                    b += "<td class=\"num\">\(escape(Wording.difference(c.metric, a.unadjusted.absoluteDiff, in: r.currency)))<br><span class=\"ci\">\(escape(Wording.differenceInterval(c.metric, a.unadjusted.absoluteCI, in: r.currency)))</span></td>"
                    b += "<td class=\"num\">\(escape(SegmentRows.varianceReduction(a)))</td><td class=\"num\">\(a.strata)</td></tr>"
                }
                b += "</tbody></table></div>"
            }
            b += "</section>\n"
        }

        for d in r.segments {
            b += "<section><h2>By \(escape(d.dimension))</h2><p class=\"muted\">\(escape(SegmentDimension.exploratoryNote))</p>"
            for sentence in d.differenceSentences { b += "<p class=\"differs\"><strong>\(escape(sentence))</strong></p>" }
            b += "<figure><div class=\"chartbox\">\(SVGCharts.segmentForestPlot(d, r))</div><figcaption>\(escape(Wording.title(r.primaryMetric))): each value's difference to the control with its \(r.confidenceLabel) interval; the dashed line is all users'.</figcaption></figure>"
            b += "<div class=\"scroll\"><table><thead><tr><th>value</th><th>users</th><th>metric</th><th>variant</th><th>difference</th><th>lift</th><th>p (Holm)</th></tr></thead><tbody>"
            for row in SegmentRows.rows(d, primary: r.primaryMetric, in: r.currency) {
                let cls = row.reading.clearlyBetter ? "good" : row.reading.clearlyWorse ? "bad" : ""
                b += "<tr class=\"\(cls)\"><td>\(escape(row.value))</td><td class=\"num\">\(row.users)</td><td>\(escape(row.metric))</td><td>\(escape(row.variant))</td>"
                b += "<td class=\"num\">\(escape(row.difference))<br><span class=\"ci\">\(escape(row.interval))</span></td><td class=\"num\">\(escape(row.lift))</td><td class=\"num\">\(escape(row.pHolm))</td></tr>"
            }
            b += "</tbody></table></div><ul class=\"muted\">" + SegmentRows.heterogeneityLines(d).map { "<li>\(escape($0))</li>" }.joined() + "</ul>"
            b += "<p class=\"muted\">\(escape(SegmentRows.poolingNote(d)))</p></section>\n"
        }

        b += "<section><h2>Cumulative paid conversion</h2><figure><div class=\"chartbox\">\(SVGCharts.conversionChart(r))</div>"
        b += "<figcaption>Share of users who paid within d days of their first exposure (Kaplan–Meier estimate: recent users count for the days they have been followed). Curves stop where fewer than 20 users have been followed that long.</figcaption></figure></section>\n"

        b += "<section><h2>Revenue per user by day</h2><figure><div class=\"chartbox\">\(SVGCharts.revenueChart(r))</div>"
        b += "<figcaption>Cumulative net revenue per exposed user by day since first exposure (realised LTV): each day's revenue is divided by the users followed at least that long, so recent users count for the days they have had\(capCaption(r)). Curves stop where fewer than 20 users have been followed that long.</figcaption></figure></section>\n"

        if let forecasts = r.forecast {
            b += "<section><h2>Forecast</h2><figure><div class=\"chartbox\">\(SVGCharts.forecastChart(r, forecasts))</div>"
            b += "<figcaption>Realised revenue per exposed user by day (solid), extended to day \(forecasts[0].horizonDays) by the forecast (dashed) with its 90% interval (shaded).</figcaption></figure><ul>"
            b += forecasts.map { "<li>\(escape(Wording.forecastLine($0, in: r.currency)))</li>" }.joined() + "</ul><p class=\"muted\">\(escape(Wording.forecastNote))</p></section>\n"
        }
        b += "<section><h2>Subscriptions still active</h2><figure><div class=\"chartbox\">\(SVGCharts.survivalChart(r))</div>"
        b += "<figcaption>Kaplan–Meier survival from trial start to cancel; users still subscribed are counted up to \(escape(Wording.date(r.asOf))). "
        b += "Log-rank test \(escape(Wording.pEquals(r.survival.logRankP)))\(r.survival.nullReason.map { " (\(escape($0)))" } ?? "").</figcaption></figure>"
        b += "<div class=\"scroll\"><table><thead><tr><th>variant</th><th>trial starters</th><th>cancels</th>" + r.survival.days.map { "<th>day \($0)</th>" }.joined() + "</tr></thead><tbody>"
        for curve in r.survival.curves {
            b += "<tr><td>\(escape(curve.key))</td><td class=\"num\">\(Wording.count(curve.trialStarters))</td><td class=\"num\">\(Wording.count(curve.cancels))</td>"
            b += (curve.atDays?.map { "<td class=\"num\">\(Wording.percent($0, digits: 1))</td>" } ?? r.survival.days.map { _ in "<td class=\"num\">n/a</td>" }).joined()
            b += "</tr>"
        }
        b += "</tbody></table></div></section>\n"

        for split in r.copySources {
            b += "<section><h2>Copy sources of <code>\(escape(split.variant))</code></h2><div class=\"scroll\"><table><thead><tr><th>source</th><th>users</th><th>paid</th><th>paid conversion</th></tr></thead><tbody>"
            for s in split.sources {
                b += "<tr><td>\(escape(s.source))</td><td class=\"num\">\(Wording.count(s.users))</td><td class=\"num\">\(Wording.count(s.paid))</td><td class=\"num\">\(escape(Wording.percent(s.paidRate)))</td></tr>"
            }
            b += "</tbody></table></div>"
            if !split.fallbackReasons.isEmpty {
                b += "<p>Why lines fell back: " + split.fallbackReasons.prefix(5).map { "\(escape($0.reason)) (\(Wording.count($0.count)))" }.joined(separator: ", ") + "</p>"
            }
            b += "</section>\n"
        }
        b += "<footer class=\"muted\">abctl report · rates are Wilson intervals; differences unpooled Wald; lifts delta-method; p-values pooled z-test (Welch for revenue), Holm-adjusted across treatments; chance to win from Beta(1, 1) priors (for revenue, the normal approximation of the difference).</footer>\n"
        b += "</main>\n</body>\n</html>\n"
        return b
    }

    /// ", each user's revenue capped at …", when the report caps revenue.
    static func capCaption(_ r: Report) -> String {
        guard let cap = r.variants.first?.metric(.revenuePerUser)?.cap else { return "" }
        return "; each user's revenue capped at \(escape(Wording.money(cap, in: r.currency)))"
    }

    /// Escapes text for HTML element content and quoted attribute values.
    public static func escape(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for ch in s.unicodeScalars {
            switch ch {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default:
                if ch.value < 0x20 && ch != "\n" && ch != "\t" { out += "\u{FFFD}" } else { out.unicodeScalars.append(ch) }
            }
        }
        return out
    }

    static let css = """
    :root{color-scheme:light dark;--fg:#1d1d1f;--bg:#fff;--muted:#6e6e73;--line:#d2d2d7;--good:#1a7f37;--bad:#cf222e;--warn:#9a6700;--card:#f6f8fa}
    @media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--bg:#0d1117;--muted:#8b949e;--line:#30363d;--good:#3fb950;--bad:#f85149;--warn:#d29922;--card:#161b22}}
    *{box-sizing:border-box}body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.5 -apple-system,BlinkMacSystemFont,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
    main{max-width:1100px;margin:0 auto;padding:16px}h1{font-size:1.6em;margin:.2em 0;overflow-wrap:anywhere}h2{font-size:1.2em;margin:1.4em 0 .5em}
    .meta,.muted,figcaption,footer{color:var(--muted);font-size:.9em}.hypothesis{font-style:italic}
    code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.92em;overflow-wrap:anywhere}
    .verdict{border-left:6px solid var(--muted);background:var(--card);padding:8px 16px;border-radius:6px}.verdict h2{margin:.3em 0;text-transform:capitalize}
    .verdict.ship{border-color:var(--good)}.verdict.stop{border-color:var(--bad)}.verdict.keep_running,.verdict.inconclusive{border-color:var(--warn)}
    .health{list-style:none;padding:0}.health li{padding:4px 0}.badge{display:inline-block;min-width:4.5em;text-align:center;border-radius:4px;font-size:.8em;padding:0 6px;margin-right:6px;background:var(--card);border:1px solid var(--line)}
    .health .alert .badge{color:#fff;background:var(--bad);border-color:var(--bad)}.health .warning .badge{color:var(--warn);border-color:var(--warn)}.health .ok .badge{color:var(--good);border-color:var(--good)}
    .scroll{overflow-x:auto;-webkit-overflow-scrolling:touch}table{border-collapse:collapse;width:100%;font-size:.92em}
    th,td{padding:6px 8px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}th{font-weight:600;white-space:nowrap}
    td.num{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}.ci{color:var(--muted);font-size:.85em}
    tr.good td:nth-child(3),tr.good td:nth-child(4){color:var(--good);font-weight:600}tr.bad td:nth-child(3),tr.bad td:nth-child(4){color:var(--bad);font-weight:600}
    .tag{font-size:.75em;border:1px solid var(--line);border-radius:4px;padding:0 4px;color:var(--muted)}
    figure{margin:0}.chartbox{overflow-x:auto;-webkit-overflow-scrolling:touch}svg.chart{width:100%;min-width:560px;height:auto;display:block}svg .grid{stroke:var(--line);stroke-width:1}svg .zero{stroke:var(--fg);stroke-width:1.5;stroke-dasharray:4 3}
    svg .axisline{stroke:var(--muted)}svg text{fill:var(--fg);font-size:12px}svg .tick{fill:var(--muted);font-size:11px}svg .axis{fill:var(--muted);font-size:12px}svg .label{font-size:12px}
    @media (max-width:600px){main{padding:10px}body{font-size:14px}th,td{padding:4px 6px}}
    """
}
