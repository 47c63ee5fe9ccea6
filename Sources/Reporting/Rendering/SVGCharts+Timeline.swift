import ExperimentDefinitions
import Foundation

extension SVGCharts {
    /// The effect over time: per treatment, the primary metric's difference to the control day by day
    /// (a line) inside its interval (a band of the same colour), with a dashed line at zero. A day whose
    /// difference cannot be computed yet leaves a gap.
    static func timelineChart(_ r: Report, width: Double = wide) -> String {
        guard let t = r.timeline, !t.points.isEmpty,
              t.points.contains(where: { p in p.comparisons.contains { $0.absoluteDiff != nil } }) else {
            return "<p class=\"muted\">No difference to draw yet.</p>"
        }
        let metric = t.metric
        var lo = 0.0, hi = 0.0
        for p in t.points {
            for c in p.comparisons {
                guard let d = c.absoluteDiff else { continue }
                lo = min(lo, c.absoluteCI?.lower ?? d, d)
                hi = max(hi, c.absoluteCI?.upper ?? d, d)
            }
        }
        let pad = max(metric.isRevenue ? 0.05 : 0.002, (hi - lo) * 0.08)
        lo -= pad
        hi += pad
        func tick(_ v: Double) -> String { metric.isRevenue ? Wording.signedMoney(v, in: r.currency) : Wording.points(v) }
        let yTicks = ticks(lo, hi, count: 5)
        let yLabels = yTicks.map(tick)
        let right = 24.0, top = 16.0, bottom = 58.0, ph = 246.0
        let left = max(56, 20 + textWidth(yLabels.max { $0.count < $1.count } ?? "", size: 11) + 10)
        let pw = width - left - right
        let treatments = Array(t.variants.enumerated().dropFirst())
        let legend = Self.legend(treatments.map { ($0.element, color($0.offset)) }, left: left, width: width, top: top + ph + 44)
        let height = top + ph + bottom + legend.extra
        let last = Double(max(1, t.points.count - 1))
        func x(_ i: Int) -> Double { left + (t.points.count == 1 ? pw / 2 : Double(i) / last * pw) }
        func y(_ v: Double) -> Double { top + (1 - (min(max(v, lo), hi) - lo) / (hi - lo)) * ph }
        var s = "<svg class=\"chart\" viewBox=\"0 0 \(f(width)) \(f(height))\" role=\"img\" aria-label=\"\(HTMLReportRenderer.escape("Difference in \(Wording.title(metric).lowercased()) against the control by day, with its interval, per treatment"))\">"
        for (v, label) in zip(yTicks, yLabels) {
            s += "<line x1=\"\(f(left))\" y1=\"\(f(y(v)))\" x2=\"\(f(width - right))\" y2=\"\(f(y(v)))\" class=\"grid\"/>"
            s += "<text x=\"\(f(left - 6))\" y=\"\(f(y(v) + 4))\" text-anchor=\"end\" class=\"tick\">\(HTMLReportRenderer.escape(label))</text>"
        }
        // Dates under the axis: at most six (four when narrow), the first and the last among them.
        let every = max(1, Int((Double(t.points.count) / (width < wide ? 3 : 5)).rounded(.up)))
        var labelled = Set(stride(from: 0, to: t.points.count, by: every)).union([t.points.count - 1])
        // A date too close to the last one to stand beside it gives way.
        if t.points.count > 1 { labelled = labelled.filter { $0 == t.points.count - 1 || x(t.points.count - 1) - x($0) >= 52 } }
        for i in labelled.sorted() {
            let day = String(RFC3339.formatDay(t.points[i].date).dropFirst(5))
            let anchor = i == 0 && t.points.count > 1 ? "start" : i == t.points.count - 1 && t.points.count > 1 ? "end" : "middle"
            s += "<text x=\"\(f(x(i)))\" y=\"\(f(top + ph + 16))\" text-anchor=\"\(anchor)\" class=\"tick\">\(day)</text>"
        }
        s += "<line x1=\"\(f(left))\" y1=\"\(f(y(0)))\" x2=\"\(f(width - right))\" y2=\"\(f(y(0)))\" class=\"zero\"/>"
        for (v, key) in treatments {
            let tint = color(v)
            // Runs of consecutive days with a figure: a band and a line each.
            var runs: [[(Int, ComparisonResult)]] = [[]]
            for (i, p) in t.points.enumerated() {
                if let c = p.comparisons.first(where: { $0.variant == key }), c.absoluteDiff != nil { runs[runs.count - 1].append((i, c)) }
                else if !runs[runs.count - 1].isEmpty { runs.append([]) }
            }
            for run in runs where !run.isEmpty {
                let banded = run.filter { $0.1.absoluteCI != nil }
                if banded.count == run.count {
                    let upper = run.map { "\(f(x($0.0))),\(f(y($0.1.absoluteCI!.upper)))" }
                    let lower = run.reversed().map { "\(f(x($0.0))),\(f(y($0.1.absoluteCI!.lower)))" }
                    s += "<polygon points=\"\((upper + lower).joined(separator: " "))\" fill=\"\(tint)\" fill-opacity=\"0.18\" stroke=\"none\"/>"
                }
                if run.count == 1 {
                    s += "<circle cx=\"\(f(x(run[0].0)))\" cy=\"\(f(y(run[0].1.absoluteDiff!)))\" r=\"3\" fill=\"\(tint)\"/>"
                } else {
                    let d = run.enumerated().map { j, point in "\(j == 0 ? "M" : "L")\(f(x(point.0))),\(f(y(point.1.absoluteDiff!)))" }.joined(separator: " ")
                    s += "<path d=\"\(d)\" fill=\"none\" stroke=\"\(tint)\" stroke-width=\"2.5\"><title>\(HTMLReportRenderer.escape(key))</title></path>"
                }
            }
        }
        s += "<text x=\"\(f(left + pw / 2))\" y=\"\(f(top + ph + 32))\" text-anchor=\"middle\" class=\"axis\">day (UTC), each read as of its end</text>"
        s += legend.svg
        s += "<text transform=\"translate(12 \(f(top + ph / 2))) rotate(-90)\" text-anchor=\"middle\" class=\"axis\">difference to the control</text>"
        return s + "</svg>"
    }
}
