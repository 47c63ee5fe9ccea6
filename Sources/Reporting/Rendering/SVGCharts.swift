import ExperimentDefinitions
import Foundation

/// Inline SVG charts for the HTML report. Each chart scales to its container (`viewBox`,
/// width 100%), and is drawn twice: at `wide` for a screen and at `narrow` for a phone, where the
/// wide one shrunk to the width would shrink its labels past reading; the stylesheet shows the one
/// that fits. Every label is HTML-escaped and laid out whole inside the chart.
enum SVGCharts {
    static let wide = 720.0, narrow = 360.0

    /// `chart` drawn `width` units wide.
    static func draw(_ chart: ReportDocument.Chart, _ r: Report, width: Double) -> String {
        switch chart {
        case .forest: forestPlot(r, width: width)
        case .conversion: conversionChart(r, width: width)
        case .revenue: revenueChart(r, width: width)
        case .forecast: forecastChart(r, r.forecast ?? [], width: width)
        case .survival: survivalChart(r, width: width)
        case .allocation: allocationChart(r, width: width)
        case .segment(let i): segmentForestPlot(r.segments[i], r, width: width)
        case .timeline: timelineChart(r, width: width)
        }
    }

    /// Blue for the control, then colours that do not read as "good" (green) or "bad" (red).
    static let palette = ["#4e79a7", "#f28e2b", "#b07aa1", "#76b7b2", "#9c755f", "#edc948", "#ff9da7", "#bab0ac", "#59a14f", "#e15759"]

    static func color(_ i: Int) -> String { palette[i % palette.count] }

    static func f(_ x: Double) -> String { String(format: "%.1f", x) }

    /// Forest plot: one row per comparison with a relative lift, the point and its interval, a line at 0.
    static func forestPlot(_ r: Report, width: Double = wide) -> String {
        let rows = r.comparisons.filter { $0.relativeLift != nil }
        guard !rows.isEmpty else { return "<p class=\"muted\">No lifts to plot (no treatment, or the control's rate is 0).</p>" }
        let labels = rows.map { "\($0.variant) · \(Wording.title($0.metric))" }
        var lo = 0.0, hi = 0.0
        for c in rows {
            lo = min(lo, c.relativeCI?.lower ?? c.relativeLift!, c.relativeLift!)
            hi = max(hi, c.relativeCI?.upper ?? c.relativeLift!, c.relativeLift!)
        }
        lo = max(lo, -1); hi = min(hi, 3)
        let pad = max(0.02, (hi - lo) * 0.08)
        lo -= pad; hi += pad
        let tickValues = ticks(lo, hi, count: width < wide ? 4 : 6)
        let rowsLayout = ForestRows(labels: labels, ticks: tickValues.map { Wording.signedPercent($0, digits: 0) }, width: width, rowHeight: 28, top: 24,
                                    axis: "relative lift against the control (square: primary metric)")
        let (left, right, height) = (rowsLayout.plotLeft, rowsLayout.right, rowsLayout.height)
        func x(_ v: Double) -> Double { left + (min(max(v, lo), hi) - lo) / (hi - lo) * (width - left - right) }
        var s = "<svg class=\"chart\" viewBox=\"0 0 \(f(width)) \(f(height))\" role=\"img\" aria-label=\"Relative lift of each variant against the control, with intervals\">"
        s += rowsLayout.grid(tickValues.map(x))
        s += "<line x1=\"\(f(x(0)))\" y1=\"\(f(rowsLayout.top - 12))\" x2=\"\(f(x(0)))\" y2=\"\(f(rowsLayout.plotBottom))\" class=\"zero\"/>"
        let variantIndex = Dictionary(r.variants.enumerated().map { ($1.key, $0) }, uniquingKeysWith: { a, _ in a })
        for (i, c) in rows.enumerated() {
            let y = rowsLayout.y(i)
            let col = color(variantIndex[c.variant] ?? i)
            let label = labels[i]
            s += rowsLayout.label(i)
            if let ci = c.relativeCI {
                s += "<line x1=\"\(f(x(ci.lower)))\" y1=\"\(f(y))\" x2=\"\(f(x(ci.upper)))\" y2=\"\(f(y))\" stroke=\"\(col)\" stroke-width=\"3\"/>"
                if ci.lower < lo { s += "<text x=\"\(f(left + 2))\" y=\"\(f(y + 4))\" class=\"tick\">◀</text>" }
                if ci.upper > hi { s += "<text x=\"\(f(width - right - 8))\" y=\"\(f(y + 4))\" class=\"tick\">▶</text>" }
            }
            let shape = c.metric == r.primaryMetric ? "<rect x=\"\(f(x(c.relativeLift!) - 6))\" y=\"\(f(y - 6))\" width=\"12\" height=\"12\" fill=\"\(col)\"/>"
                : "<circle cx=\"\(f(x(c.relativeLift!)))\" cy=\"\(f(y))\" r=\"5\" fill=\"\(col)\"/>"
            s += shape
            s += "<title>\(HTMLReportRenderer.escape("\(label): \(Wording.signedPercent(c.relativeLift)) \(Wording.liftInterval(c.relativeCI))"))</title>"
        }
        s += rowsLayout.axisTitle
        return s + "</svg>"
    }

    /// Lines of (x, y) per series with axes. `yPercent` labels the y axis in percent.
    static func lineChart(series: [(name: String, color: String, points: [(Double, Double)], step: Bool)], xMax: Double, yMin: Double, yMax: Double,
                          xLabel: String, yLabel: String, aria: String, yTick: ((Double) -> String)? = nil,
                          extensions: [(color: String, from: (Double, Double), to: Double, lower: Double, upper: Double)] = [],
                          width: Double = wide) -> String {
        let yTicks = ticks(yMin, yMax, count: 5)
        let yLabels = yTicks.map { yTick?($0) ?? Wording.percent($0, digits: yMax - yMin < 0.05 ? 1 : 0) }
        // The y axis title (rotated, centred at x = 12) takes the first 20 units; the tick labels, right-aligned
        // 6 units left of the plot, take their own width: the plot starts after both, so neither is cut or overlaps.
        let right = 16.0, top = 16.0, bottom = 58.0, ph = 246.0
        let left = max(56, 20 + textWidth(yLabels.max { $0.count < $1.count } ?? "", size: 11) + 10)
        let pw = width - left - right
        let legend = Self.legend(series.map { ($0.name, $0.color) }, left: left, width: width, top: top + ph + 44)
        let height = top + ph + bottom + legend.extra
        func x(_ v: Double) -> Double { left + min(max(v, 0), xMax) / xMax * pw }
        func y(_ v: Double) -> Double { top + (1 - (min(max(v, yMin), yMax) - yMin) / (yMax - yMin)) * ph }
        var s = "<svg class=\"chart\" viewBox=\"0 0 \(f(width)) \(f(height))\" role=\"img\" aria-label=\"\(HTMLReportRenderer.escape(aria))\">"
        for (t, label) in zip(yTicks, yLabels) {
            s += "<line x1=\"\(f(left))\" y1=\"\(f(y(t)))\" x2=\"\(f(width - right))\" y2=\"\(f(y(t)))\" class=\"grid\"/>"
            s += "<text x=\"\(f(left - 6))\" y=\"\(f(y(t) + 4))\" text-anchor=\"end\" class=\"tick\">\(HTMLReportRenderer.escape(label))</text>"
        }
        for t in ticks(0, xMax, count: width < wide ? 4 : 6) {
            s += "<text x=\"\(f(x(t)))\" y=\"\(f(top + ph + 16))\" text-anchor=\"middle\" class=\"tick\">\(Int(t.rounded()))</text>"
        }
        s += "<line x1=\"\(f(left))\" y1=\"\(f(top + ph))\" x2=\"\(f(width - right))\" y2=\"\(f(top + ph))\" class=\"axisline\"/>"
        // Forecast wedges under the lines: from the last realised point to the interval at the chart's end.
        for e in extensions {
            s += "<path d=\"M\(f(x(e.from.0))),\(f(y(e.from.1))) L\(f(x(xMax))),\(f(y(e.upper))) L\(f(x(xMax))),\(f(y(e.lower))) Z\" fill=\"\(e.color)\" fill-opacity=\"0.15\" stroke=\"none\"/>"
            s += "<path d=\"M\(f(x(e.from.0))),\(f(y(e.from.1))) L\(f(x(xMax))),\(f(y(e.to)))\" fill=\"none\" stroke=\"\(e.color)\" stroke-width=\"2\" stroke-dasharray=\"6 4\"/>"
        }
        for line in series where !line.points.isEmpty {
            var d = ""
            var last: (Double, Double)?
            for p in line.points {
                if d.isEmpty { d = "M\(f(x(p.0))),\(f(y(p.1)))" } else if line.step, let last {
                    d += " L\(f(x(p.0))),\(f(y(last.1))) L\(f(x(p.0))),\(f(y(p.1)))"
                } else {
                    d += " L\(f(x(p.0))),\(f(y(p.1)))"
                }
                last = p
            }
            s += "<path d=\"\(d)\" fill=\"none\" stroke=\"\(line.color)\" stroke-width=\"2.5\"><title>\(HTMLReportRenderer.escape(line.name))</title></path>"
        }
        s += "<text x=\"\(f(left + pw / 2))\" y=\"\(f(top + ph + 32))\" text-anchor=\"middle\" class=\"axis\">\(HTMLReportRenderer.escape(xLabel))</text>"
        s += legend.svg
        s += "<text transform=\"translate(12 \(f(top + ph / 2))) rotate(-90)\" text-anchor=\"middle\" class=\"axis\">\(HTMLReportRenderer.escape(yLabel))</text>"
        return s + "</svg>"
    }

    /// A bandit's weights over time: one step line per arm, each period's weight from its start.
    static func allocationChart(_ r: Report, width: Double = wide) -> String {
        guard let a = r.allocation, !a.periods.isEmpty else { return "<p class=\"muted\">No allocation period yet.</p>" }
        let series = a.variants.enumerated().map { v, key in
            (name: key, color: color(v), points: a.periods.map { (Double($0.index), $0.weights[v] / max(1e-300, $0.weights.reduce(0, +))) } + [(Double(a.periods.count), a.periods.last!.weights[v] / max(1e-300, a.periods.last!.weights.reduce(0, +)))], step: true)
        }
        return lineChart(series: series, xMax: Double(a.periods.count), yMin: 0, yMax: 1,
                         xLabel: "allocation period", yLabel: "weight", aria: "Each arm's weight per allocation period", width: width)
    }

    static func conversionChart(_ r: Report, width: Double = wide) -> String {
        var yMax = 0.0
        let series = r.conversionByDay.enumerated().map { i, curve in
            let pts = curve.points.filter { $0.users >= 20 }.compactMap { p in p.rate.map { (Double(p.day), $0) } }
            yMax = max(yMax, pts.map(\.1).max() ?? 0)
            return (name: curve.key, color: color(i), points: pts, step: false)
        }
        guard series.contains(where: { !$0.points.isEmpty }) else { return "<p class=\"muted\">No users yet.</p>" }
        return lineChart(series: series, xMax: Double(VariantTally.curveDays), yMin: 0, yMax: niceMax(yMax),
                         xLabel: "days since first exposure", yLabel: "paid so far", aria: "Cumulative paid conversion by day since first exposure, per variant", width: width)
    }

    /// Realised LTV: cumulative net revenue per exposed user by day since first exposure, per variant,
    /// each user counted for the days followed; a curve stops where fewer than 20 users were followed that long.
    static func revenueChart(_ r: Report, width: Double = wide) -> String {
        var yMax = 0.0
        let series = r.revenueByDay.enumerated().map { i, curve in
            let pts = curve.points.filter { $0.users >= 20 }.compactMap { p in p.revenuePerUser.map { (Double(p.day), $0) } }
            yMax = max(yMax, pts.map(\.1).max() ?? 0)
            return (name: curve.key, color: color(i), points: pts, step: false)
        }
        guard series.contains(where: { !$0.points.isEmpty }), yMax > 0 else { return "<p class=\"muted\">No revenue yet.</p>" }
        return lineChart(series: series, xMax: Double(VariantTally.curveDays), yMin: 0, yMax: niceMax(yMax),
                         xLabel: "days since first exposure", yLabel: "gross revenue per user", aria: "Cumulative gross revenue per exposed user by day since first exposure, per variant",
                         yTick: { Wording.money($0, in: r.currency) }, width: width)
    }

    /// The realised revenue-per-user curve of each arm, extended from its last point to the horizon by the
    /// forecast (dashed) with the forecast's 90% interval as a shaded wedge.
    static func forecastChart(_ r: Report, _ forecasts: [ArmForecast], width: Double = wide) -> String {
        let horizon = Double(forecasts.first?.horizonDays ?? 365)
        var yMax = 0.0
        var series: [(name: String, color: String, points: [(Double, Double)], step: Bool)] = []
        var extensions: [(color: String, from: (Double, Double), to: Double, lower: Double, upper: Double)] = []
        for (i, f) in forecasts.enumerated() {
            let curve = r.revenueByDay.first { $0.key == f.variant }
            let pts = (curve?.points ?? []).filter { $0.users >= 20 }.compactMap { p in p.revenuePerUser.map { (Double(p.day), $0) } }
            series.append((name: f.variant, color: color(i), points: pts, step: false))
            yMax = max(yMax, pts.map(\.1).max() ?? 0)
            if let value = f.revenuePerUser, let ci = f.ci {
                extensions.append((color(i), pts.last ?? (0, 0), value, ci.lower, ci.upper))
                yMax = max(yMax, ci.upper)
            }
        }
        guard yMax > 0 else { return "<p class=\"muted\">No revenue yet.</p>" }
        return lineChart(series: series, xMax: horizon, yMin: 0, yMax: niceMax(yMax), xLabel: "days since first exposure",
                         yLabel: "gross revenue per user", aria: "Realised gross revenue per user by day, extended by the forecast to day \(Int(horizon)) with its 90% interval, per variant",
                         yTick: { Wording.money($0, in: r.currency) }, extensions: extensions, width: width)
    }

    static func survivalChart(_ r: Report, width: Double = wide) -> String {
        var minS = 1.0, maxDay = 1.0
        let series = r.survival.curves.enumerated().map { i, curve in
            let pts = [(0.0, 1.0)] + curve.steps.map { ($0.day, $0.survival) }
            minS = min(minS, pts.map(\.1).min() ?? 1)
            maxDay = max(maxDay, pts.map(\.0).max() ?? 0)
            return (name: curve.key, color: color(i), points: pts, step: true)
        }
        guard r.survival.curves.contains(where: { $0.trialStarters > 0 }) else { return "<p class=\"muted\">No trial starters yet.</p>" }
        let xMax = min(max(7, (maxDay).rounded(.up)), 30)
        // Extend each curve flat to the right edge so a curve without recent drops stays visible.
        let extended = series.map { s in (name: s.name, color: s.color, points: s.points.filter { $0.0 <= xMax } + [(xMax, s.points.last(where: { $0.0 <= xMax })?.1 ?? 1)], step: true) }
        let yMin = max(0, ((minS - 0.05) * 10).rounded(.down) / 10)
        return lineChart(series: extended, xMax: xMax, yMin: yMin, yMax: 1, xLabel: "days since trial start",
                         yLabel: "still subscribed", aria: "Kaplan-Meier survival of subscriptions from trial start, per variant", width: width)
    }

    static func niceMax(_ v: Double) -> Double {
        guard v > 0 else { return 0.01 }
        let mag = pow(10, (log10(v)).rounded(.down))
        for m in [1.0, 2, 2.5, 5, 10] where m * mag >= v * 1.05 { return m * mag }
        return 10 * mag
    }

    static func ticks(_ lo: Double, _ hi: Double, count: Int) -> [Double] {
        guard hi > lo else { return [lo] }
        let raw = (hi - lo) / Double(count)
        let mag = pow(10, (log10(raw)).rounded(.down))
        let step = [1.0, 2, 2.5, 5, 10].map { $0 * mag }.first { $0 >= raw } ?? 10 * mag
        var t = (lo / step).rounded(.up) * step
        var out: [Double] = []
        while t <= hi + step * 1e-9 { out.append(abs(t) < step * 1e-9 ? 0 : t); t += step }
        return out
    }

    static func truncate(_ s: String, _ n: Int) -> String { s.count <= n ? s : String(s.prefix(n - 1)) + "…" }

    /// An estimate of the width of `s` in SVG units at `size` px of the report's sans-serif font
    /// (0.6 em a character, generous for digits and capitals), for laying out labels without a browser.
    static func textWidth(_ s: String, size: Double) -> Double { Double(s.count) * size * 0.6 }

    /// The right margin of a chart whose tick labels are centred under their ticks: at least 20 units,
    /// and half the widest label, so the last one is not cut by the chart's edge ("+10.00 pp" was).
    static func rightMargin(ticks labels: [String]) -> Double {
        max(20, (labels.map { textWidth($0, size: 11) }.max() ?? 0) / 2 + 4)
    }

    /// The label column of a forest plot: wide enough for the longest label at 12 px, within 150 to 400 units.
    static func labelColumn(_ labels: [String]) -> Double {
        min(400, max(150, (labels.map { textWidth($0, size: 12) }.max() ?? 0) + 16))
    }

    /// `s` within `width` units at 12 px: cut in the middle when it must be, so that labels which differ
    /// only at the end ("…, first 14 days", "…, first 10 days") stay told apart.
    static func fit(_ s: String, _ width: Double) -> String {
        let n = Int(width / (12 * 0.6))
        guard s.count > n, n > 6 else { return s }
        let tail = (n - 1) / 2, head = n - 1 - tail
        return String(s.prefix(head)) + "…" + String(s.suffix(tail))
    }
}
