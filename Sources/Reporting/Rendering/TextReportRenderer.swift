import Events
import ExperimentDefinitions
import Foundation

/// The report for a terminal: `ReportDocument` written as headings, indented lines and aligned
/// tables (an interval in a column of its own). Charts are left to the HTML report.
/// Colour only when `color` is true (the caller checks for a terminal and `NO_COLOR`).
public enum TextReportRenderer {
    static let green = "32", red = "31", yellow = "33", bold = "1", dim = "2"

    public static func render(_ r: Report, color: Bool) -> String { write(ReportDocument(r), color: color) }

    static func write(_ doc: ReportDocument, color: Bool) -> String {
        func paint(_ s: String, _ code: String) -> String { color ? "\u{1B}[\(code)m\(s)\u{1B}[0m" : s }
        let facts = doc.facts.joined(separator: "; ")
        var out = paint(clean(doc.title), bold) + "  (\(clean(doc.experimentID)))\n"
        out += facts.prefix(1).uppercased() + facts.dropFirst() + "; primary metric: \(doc.primaryMetric)\n"
        if let h = doc.hypothesis { out += "Hypothesis: \(clean(h))\n" }
        for section in doc.sections {
            let blocks = section.blocks.compactMap { block($0, color: color) }
            guard !blocks.isEmpty else { continue }
            let heading = section.title.map { part -> String in
                switch part {
                case .text(let s): clean(s).uppercased()
                case .code(let s): "\"\(clean(s))\""
                case .mark(let tone): mark(tone)
                }
            }.joined()
            let tint: String = switch section.verdict {
            case nil: bold
            case .ship?: "1;" + green
            case .stop?: "1;" + red
            case .keepRunning?, .inconclusive?: "1;" + yellow
            }
            out += "\n" + paint(heading, tint) + "\n" + blocks.joined(separator: "\n")
        }
        return out
    }

    static func mark(_ tone: ReportDocument.Tone) -> String { tone == .good ? "▲" : "▼" }

    static func block(_ b: ReportDocument.Block, color: Bool) -> String? {
        func paint(_ s: String, _ code: String) -> String { color ? "\u{1B}[\(code)m\(s)\u{1B}[0m" : s }
        switch b {
        case .paragraph(let parts, let style):
            let text = parts.map { part -> String in
                switch part {
                case .text(let s): clean(s)
                case .code(let s): "\"\(clean(s))\""
                case .mark(let tone): mark(tone)
                }
            }.joined()
            return "  " + (style == .strong ? paint(text, yellow) : text) + "\n"
        case .list(let items):
            return items.map { item in
                guard let badge = item.badge else { return "  - \(clean(item.text))\n" }
                let label: String = switch badge {
                case .alert: paint("[alert]", red)
                case .warning: paint("[warn] ", yellow)
                case .info: paint("[info] ", dim)
                case .ok: paint("[ok]   ", green)
                case .stop: paint("[stop] ", red)
                case .reset: paint("[reset]", dim)
                }
                return "  \(label) \(clean(item.text))\n"
            }.joined()
        case .table(let t):
            var headers: [String] = [], aligns: [TextTable.Align] = []
            for c in t.columns {
                headers.append(c.header)
                aligns.append(c.align == .left ? .left : .right)
                if let h = c.detailHeader { headers.append(h); aligns.append(.right) }
            }
            var table = TextTable(headers, aligns: aligns)
            for row in t.rows {
                var cells: [TextTable.Cell] = []
                for (c, cell) in zip(t.columns, row) {
                    var text = clean(cell.text) + (cell.tag.map { " (\($0))" } ?? "")
                    if cell.marked, let tone = cell.tone { text += " " + mark(tone) }
                    let tint = cell.tone.map { $0 == .good ? green : red }
                    if c.detailHeader != nil {
                        cells += [TextTable.Cell(text: text, color: tint), TextTable.Cell(text: cell.detail ?? "")]
                    } else {
                        cells.append(TextTable.Cell(text: text + (cell.detail.map { $0.isEmpty ? "" : " " + $0 } ?? ""), color: tint))
                    }
                }
                table.add(cells)
            }
            return table.render(color: color)
        case .chart:
            return nil
        }
    }

    /// Strips control characters (ANSI escapes included) from text that came from files or events.
    static func clean(_ s: String) -> String {
        String(String.UnicodeScalarView(s.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F || (0x80...0x9F).contains($0.value) ? "?" : $0 }))
    }
}
