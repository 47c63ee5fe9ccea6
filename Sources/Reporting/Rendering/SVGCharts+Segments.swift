import ExperimentDefinitions
import Foundation

extension SVGCharts {
    /// Forest plot of one `--by` dimension: per value (and treatment), the primary metric's difference to
    /// the control with its interval, a line at 0 and a dashed line at the whole experiment's difference.
    static func segmentForestPlot(_ d: SegmentDimension, _ r: Report) -> String {
        let metric = r.primaryMetric
        let rows: [(label: String, variant: String, c: ComparisonResult)] = d.cells.flatMap { cell in
            cell.comparisons.filter { $0.metric == metric && $0.absoluteDiff != nil }.map { c in
                (r.variants.count > 2 ? "\(cell.value) · \(c.variant)" : cell.value, c.variant, c)
            }
        }
        guard !rows.isEmpty else { return "<p class=\"muted\">No differences to plot for \(HTMLReportRenderer.escape(d.dimension)).</p>" }
        let overall = r.comparisons.filter { $0.metric == metric }
        let rowHeight = 26.0, top = 22.0, width = 720.0
        let labelWidth = labelColumn(rows.map(\.label))
        let height = top + Double(rows.count) * rowHeight + 46
        var lo = 0.0, hi = 0.0
        for row in rows {
            let c = row.c
            lo = min(lo, c.absoluteCI?.lower ?? c.absoluteDiff!, c.absoluteDiff!)
            hi = max(hi, c.absoluteCI?.upper ?? c.absoluteDiff!, c.absoluteDiff!)
        }
        let pad = max(metric.isRevenue ? 0.05 : 0.002, (hi - lo) * 0.08)
        lo -= pad
        hi += pad
        func tick(_ v: Double) -> String { metric.isRevenue ? Wording.signedMoney(v, in: r.currency) : Wording.points(v) }
        let tickValues = ticks(lo, hi, count: 6)
        let tickLabels = tickValues.map(tick)
        let right = rightMargin(ticks: tickLabels)
        let plotWidth = width - labelWidth - right
        func x(_ v: Double) -> Double { labelWidth + (min(max(v, lo), hi) - lo) / (hi - lo) * plotWidth }
        let aria = "\(metric.title) difference to the control by \(d.dimension), with intervals"
        var s = "<svg class=\"chart\" viewBox=\"0 0 \(f(width)) \(f(height))\" role=\"img\" aria-label=\"\(HTMLReportRenderer.escape(aria))\">"
        for (t, label) in zip(tickValues, tickLabels) {
            s += "<line x1=\"\(f(x(t)))\" y1=\"\(f(top - 8))\" x2=\"\(f(x(t)))\" y2=\"\(f(height - 42))\" class=\"grid\"/>"
            s += "<text x=\"\(f(x(t)))\" y=\"\(f(height - 26))\" text-anchor=\"middle\" class=\"tick\">\(HTMLReportRenderer.escape(label))</text>"
        }
        s += "<line x1=\"\(f(x(0)))\" y1=\"\(f(top - 12))\" x2=\"\(f(x(0)))\" y2=\"\(f(height - 42))\" class=\"zero\"/>"
        let variantIndex = Dictionary(r.variants.enumerated().map { ($1.key, $0) }, uniquingKeysWith: { a, _ in a })
        for o in overall {
            guard let diff = o.absoluteDiff else { continue }
            s += "<line x1=\"\(f(x(diff)))\" y1=\"\(f(top - 12))\" x2=\"\(f(x(diff)))\" y2=\"\(f(height - 42))\" stroke=\"\(color(variantIndex[o.variant] ?? 1))\" stroke-dasharray=\"4 4\" stroke-width=\"1.5\">"
            s += "<title>\(HTMLReportRenderer.escape("\(o.variant), all users: \(tick(diff))"))</title></line>"
        }
        for (i, row) in rows.enumerated() {
            let y = top + Double(i) * rowHeight + rowHeight / 2
            let col = color(variantIndex[row.variant] ?? 1)
            let c = row.c
            s += "<text x=\"\(f(labelWidth - 8))\" y=\"\(f(y + 4))\" text-anchor=\"end\" class=\"label\">\(HTMLReportRenderer.escape(fit(row.label, labelWidth - 16)))</text>"
            if let ci = c.absoluteCI {
                s += "<line x1=\"\(f(x(ci.lower)))\" y1=\"\(f(y))\" x2=\"\(f(x(ci.upper)))\" y2=\"\(f(y))\" stroke=\"\(col)\" stroke-width=\"3\"/>"
            }
            s += "<circle cx=\"\(f(x(c.absoluteDiff!)))\" cy=\"\(f(y))\" r=\"5\" fill=\"\(col)\"/>"
            let p = Wording.pValue(c.pValueAdjusted)
            s += "<title>\(HTMLReportRenderer.escape("\(row.label): \(tick(c.absoluteDiff!)) \(Wording.differenceInterval(metric, c.absoluteCI, in: r.currency)), p (Holm) \(p)"))</title>"
        }
        let axis = "\(metric.title.lowercased()): difference to the control by \(d.dimension) (dashed: all users)"
        s += "<text x=\"\(f(labelWidth + plotWidth / 2))\" y=\"\(f(height - 8))\" text-anchor=\"middle\" class=\"axis\">\(HTMLReportRenderer.escape(axis))</text>"
        return s + "</svg>"
    }
}
