import Foundation

extension SVGCharts {
    /// Where a forest plot's rows, ticks and axis title go. Wide, a column left of the plot holds
    /// the labels; narrow, each label has lines of its own above its interval (wrapped between
    /// words), so it is written whole. The axis title wraps onto as many lines as the width needs.
    struct ForestRows {
        let labels: [String]
        let tickLabels: [String]
        let width: Double
        let top: Double
        let rowHeight: Double
        /// Labels above their rows rather than in a column beside them.
        let stacked: Bool
        let plotLeft: Double
        let right: Double
        let axis: String
        /// Narrow: each label's lines.
        let labelLines: [[String]]

        init(labels: [String], ticks: [String], width: Double, rowHeight: Double, top: Double, axis: String) {
            self.labels = labels
            tickLabels = ticks
            self.width = width
            self.top = top
            stacked = width < wide
            labelLines = stacked ? labels.map { wrap($0, width: width - 8, size: 12).map { fit($0, width - 8) } } : []
            self.rowHeight = stacked ? rowHeight + 16 * Double(labelLines.map(\.count).max() ?? 1) : rowHeight
            right = rightMargin(ticks: ticks)
            plotLeft = stacked ? right : labelColumn(labels)
            self.axis = axis
        }

        /// Where the grid lines end; the tick labels and the axis title are below.
        var plotBottom: Double { top + Double(labels.count) * rowHeight + 4 }

        var axisCentre: Double { plotLeft + (width - plotLeft - right) / 2 }

        var axisLines: [String] { wrap(axis, width: 2 * min(axisCentre, width - axisCentre) - 8, size: 12) }

        var height: Double { plotBottom + 42 + Double(axisLines.count - 1) * 15 }

        /// The y of row `i`'s interval.
        func y(_ i: Int) -> Double {
            top + Double(i) * rowHeight + (stacked ? rowHeight - 14 : rowHeight / 2)
        }

        /// Row `i`'s label: right-aligned in the column, or on the row's first line.
        func label(_ i: Int) -> String {
            if stacked {
                let baseline = top + Double(i) * rowHeight + 12
                let lines = labelLines[i]
                guard lines.count > 1 else { return "<text x=\"4.0\" y=\"\(f(baseline))\" class=\"label\">\(HTMLReportRenderer.escape(lines.first ?? ""))</text>" }
                return "<text x=\"4.0\" y=\"\(f(baseline))\" class=\"label\">" + lines.enumerated().map { n, line in
                    "<tspan x=\"4.0\" dy=\"\(n == 0 ? "0" : "16")\">\(HTMLReportRenderer.escape(line))</tspan>"
                }.joined() + "</text>"
            }
            return "<text x=\"\(f(plotLeft - 8))\" y=\"\(f(y(i) + 4))\" text-anchor=\"end\" class=\"label\">\(HTMLReportRenderer.escape(fit(labels[i], plotLeft - 16)))</text>"
        }

        /// A grid line and a tick label at each of `xs`.
        func grid(_ xs: [Double]) -> String {
            zip(xs, tickLabels).map { x, label in
                "<line x1=\"\(f(x))\" y1=\"\(f(top - 8))\" x2=\"\(f(x))\" y2=\"\(f(plotBottom))\" class=\"grid\"/>"
                    + "<text x=\"\(f(x))\" y=\"\(f(plotBottom + 16))\" text-anchor=\"middle\" class=\"tick\">\(HTMLReportRenderer.escape(label))</text>"
            }.joined()
        }

        var axisTitle: String { centredText(axisLines, x: axisCentre, y: plotBottom + 34, cls: "axis") }
    }

    /// Lines of `text`, each within `width` units at `size` px, broken between words.
    static func wrap(_ text: String, width: Double, size: Double) -> [String] {
        var lines: [String] = []
        for word in text.split(separator: " ").map(String.init) {
            if let last = lines.last, textWidth(last + " " + word, size: size) <= width {
                lines[lines.count - 1] = last + " " + word
            } else {
                lines.append(word)
            }
        }
        return lines.isEmpty ? [""] : lines
    }

    /// `lines` centred at `x`, the first on the baseline `y`, each next one 15 units below.
    static func centredText(_ lines: [String], x: Double, y: Double, cls: String) -> String {
        let open = "<text x=\"\(f(x))\" y=\"\(f(y))\" text-anchor=\"middle\" class=\"\(cls)\">"
        guard lines.count > 1 else { return open + HTMLReportRenderer.escape(lines.first ?? "") + "</text>" }
        return open + lines.enumerated().map { i, line in
            "<tspan x=\"\(f(x))\" dy=\"\(i == 0 ? "0" : "15")\">\(HTMLReportRenderer.escape(line))</tspan>"
        }.joined() + "</text>"
    }

    /// A legend under a chart: a swatch and a name per series from `left`, the first row's swatch at
    /// `top`, in as many rows as the width needs; `extra` is the height the rows after the first take.
    static func legend(_ entries: [(name: String, color: String)], left: Double, width: Double, top: Double) -> (svg: String, extra: Double) {
        var s = "", lx = left, y = top
        for (name, color) in entries {
            let name = truncate(name, 18)
            let span = 16 + textWidth(name, size: 11)
            if lx > left, lx + span > width - 4 {
                lx = left
                y += 16
            }
            s += "<rect x=\"\(f(lx))\" y=\"\(f(y))\" width=\"12\" height=\"4\" fill=\"\(color)\"/>"
            s += "<text x=\"\(f(lx + 16))\" y=\"\(f(y + 6))\" class=\"tick\">\(HTMLReportRenderer.escape(name))</text>"
            lx += 28 + Double(name.count) * 7
        }
        return (s, y - top)
    }
}
