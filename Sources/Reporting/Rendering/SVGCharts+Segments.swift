import ExperimentDefinitions
import Foundation

extension SVGCharts {
    /// Forest plot of one `--by` dimension: per value (and treatment), the primary metric's difference to
    /// the control with its interval, a line at 0 and a dashed line at the whole experiment's difference.
    static func segmentForestPlot(_ d: SegmentDimension, _ r: Report, width: Double = wide) -> String {
        let metric = r.primaryMetric
        let rows: [(label: String, variant: String, c: ComparisonResult)] = d.cells.flatMap { cell in
            cell.comparisons.filter { $0.metric == metric && $0.absoluteDiff != nil }.map { c in
                (r.variants.count > 2 ? "\(cell.value) · \(c.variant)" : cell.value, c.variant, c)
            }
        }
        guard !rows.isEmpty else { return "<p class=\"muted\">No differences to plot for \(HTMLReportRenderer.escape(d.dimension)).</p>" }
        let overall = r.comparisons.filter { $0.metric == metric }
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
        let tickValues = ticks(lo, hi, count: width < wide ? 4 : 6)
        let layout = ForestRows(labels: rows.map(\.label), ticks: tickValues.map(tick), width: width, rowHeight: 26, top: 22,
                                axis: "\(metric.title.lowercased()): difference to the control by \(d.dimension) (dashed: all users)")
        let (left, right, top, bottom) = (layout.plotLeft, layout.right, layout.top, layout.plotBottom)
        func x(_ v: Double) -> Double { left + (min(max(v, lo), hi) - lo) / (hi - lo) * (width - left - right) }
        let aria = "\(metric.title) difference to the control by \(d.dimension), with intervals"
        var s = "<svg class=\"chart\" viewBox=\"0 0 \(f(width)) \(f(layout.height))\" role=\"img\" aria-label=\"\(HTMLReportRenderer.escape(aria))\">"
        s += layout.grid(tickValues.map(x))
        s += "<line x1=\"\(f(x(0)))\" y1=\"\(f(top - 12))\" x2=\"\(f(x(0)))\" y2=\"\(f(bottom))\" class=\"zero\"/>"
        let variantIndex = Dictionary(r.variants.enumerated().map { ($1.key, $0) }, uniquingKeysWith: { a, _ in a })
        for o in overall {
            guard let diff = o.absoluteDiff else { continue }
            s += "<line x1=\"\(f(x(diff)))\" y1=\"\(f(top - 12))\" x2=\"\(f(x(diff)))\" y2=\"\(f(bottom))\" stroke=\"\(color(variantIndex[o.variant] ?? 1))\" stroke-dasharray=\"4 4\" stroke-width=\"1.5\">"
            s += "<title>\(HTMLReportRenderer.escape("\(o.variant), all users: \(tick(diff))"))</title></line>"
        }
        for (i, row) in rows.enumerated() {
            let y = layout.y(i)
            let col = color(variantIndex[row.variant] ?? 1)
            let c = row.c
            s += layout.label(i)
            if let ci = c.absoluteCI {
                s += "<line x1=\"\(f(x(ci.lower)))\" y1=\"\(f(y))\" x2=\"\(f(x(ci.upper)))\" y2=\"\(f(y))\" stroke=\"\(col)\" stroke-width=\"3\"/>"
            }
            s += "<circle cx=\"\(f(x(c.absoluteDiff!)))\" cy=\"\(f(y))\" r=\"5\" fill=\"\(col)\"/>"
            let p = Wording.pValue(c.pValueAdjusted)
            s += "<title>\(HTMLReportRenderer.escape("\(row.label): \(tick(c.absoluteDiff!)) \(Wording.differenceInterval(metric, c.absoluteCI, in: r.currency)), p (Holm) \(p)"))</title>"
        }
        s += layout.axisTitle
        return s + "</svg>"
    }
}
