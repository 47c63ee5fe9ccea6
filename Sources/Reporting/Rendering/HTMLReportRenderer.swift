import Events
import ExperimentDefinitions
import Foundation

/// The report as one self-contained HTML file: `ReportDocument` written as sections, lists and
/// tables, with its charts as inline SVG; no network, no external fonts or scripts, a responsive
/// layout for phones. Every text that came from an experiment file or an event goes through `escape`.
public enum HTMLReportRenderer {
    public static func render(_ r: Report) -> String {
        let doc = ReportDocument(r)
        var b = """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
        <title>\(escape(doc.title)) — abctl report</title>
        <style>\(css)</style>
        </head>
        <body>
        <main>

        """
        b += body(r)
        b += "</main>\n</body>\n</html>\n"
        return b
    }

    /// The report's document as the content of a page's `<main>`: its header, sections and footer
    /// (the file above, and the console's experiment page, each put it in a page of their own).
    public static func body(_ r: Report) -> String {
        let doc = ReportDocument(r)
        var b = ""
        b += "<header><h1>\(escape(doc.title))</h1>"
        b += "<p class=\"meta\"><code>\(escape(doc.experimentID))</code> · \(escape(doc.status)) · \(doc.facts.map(escape).joined(separator: " · ")) · "
        b += "primary metric: <strong>\(escape(doc.primaryMetric))</strong></p>"
        if let h = doc.hypothesis { b += "<p class=\"hypothesis\">\(escape(h))</p>" }
        b += "</header>\n"
        for section in doc.sections {
            let cls = section.verdict.map { " class=\"verdict \($0.rawValue)\"" } ?? ""
            // A table's box is named after its section, and numbered when the section has more than one.
            let title = plain(section.title), tables = section.blocks.filter { if case .table = $0 { true } else { false } }.count
            var n = 0
            b += "<section\(cls)><h2>\(inline(section.title))</h2>" + section.blocks.map { block in
                if case .table = block { n += 1 }
                return self.block(block, r, label: tables > 1 ? "\(title), table \(n)" : title)
            }.joined() + "</section>\n"
        }
        b += "<footer class=\"muted\">\(escape(doc.footer))</footer>\n"
        return b
    }

    /// The colour the charts give the arm at `index` (the control first), for a writer that draws beside them.
    public static func chartColor(_ index: Int) -> String { SVGCharts.color(index) }

    /// The stylesheet every HTML writer of the report shares: inlined in the file, linked by the console.
    public static var stylesheet: String { css }

    static func mark(_ tone: ReportDocument.Tone) -> String { tone == .good ? "▲" : "▼" }

    /// `parts` as plain text, for a label.
    static func plain(_ parts: [ReportDocument.Inline]) -> String {
        parts.map { part in
            switch part {
            case .text(let s), .code(let s): s
            case .mark(let tone): mark(tone)
            }
        }.joined()
    }

    /// The box a wide table scrolls in on a narrow screen: a named region a keyboard can reach, so
    /// it can be scrolled with the arrow keys and a screen reader says what it holds.
    public static func scrollBox(label: String) -> String {
        "<div class=\"scroll\" tabindex=\"0\" role=\"region\" aria-label=\"\(escape(label))\">"
    }

    static func inline(_ parts: [ReportDocument.Inline]) -> String {
        parts.map { part in
            switch part {
            case .text(let s): escape(s)
            case .code(let s): "<code>\(escape(s))</code>"
            case .mark(let tone): mark(tone)
            }
        }.joined()
    }

    static func block(_ b: ReportDocument.Block, _ r: Report, label: String) -> String {
        switch b {
        case .paragraph(let parts, let style):
            return switch style {
            case .plain: "<p>\(inline(parts))</p>"
            case .muted: "<p class=\"muted\">\(inline(parts))</p>"
            case .strong: "<p class=\"differs\"><strong>\(inline(parts))</strong></p>"
            }
        case .list(let items):
            guard items.contains(where: { $0.badge != nil }) else { return "<ul>" + items.map { "<li>\(escape($0.text))</li>" }.joined() + "</ul>" }
            return "<ul class=\"health\">" + items.map { item in
                let badge = item.badge ?? .info
                let cls = switch badge {
                case .stop: "alert"
                case .reset: "info"
                default: badge.rawValue
                }
                return "<li class=\"\(cls)\"><span class=\"badge\">\(badge.rawValue)</span> \(escape(item.text))</li>"
            }.joined() + "</ul>"
        case .table(let t):
            var s = scrollBox(label: label) + "<table><thead><tr>" + t.columns.map { "<th>\(escape($0.header))</th>" }.joined() + "</tr></thead><tbody>"
            for row in t.rows {
                s += "<tr>"
                for (c, cell) in zip(t.columns, row) {
                    let classes = (c.align == .right ? ["num"] : []) + (cell.tone.map { [$0 == .good ? "good" : "bad"] } ?? [])
                    s += classes.isEmpty ? "<td>" : "<td class=\"\(classes.joined(separator: " "))\">"
                    s += escape(cell.text + (cell.marked ? cell.tone.map { " " + mark($0) } ?? "" : ""))
                    if let tag = cell.tag { s += " <span class=\"tag\">\(escape(tag))</span>" }
                    for line in [cell.detail, cell.note].compactMap({ $0 }) where !line.isEmpty { s += "<br><span class=\"ci\">\(escape(line))</span>" }
                    s += "</td>"
                }
                s += "</tr>"
            }
            return s + "</tbody></table></div>"
        case .chart(let chart, let caption):
            // Drawn for a screen and for a phone; the stylesheet shows one. A line saying there is
            // nothing to draw yet is written once.
            let wide = SVGCharts.draw(chart, r, width: SVGCharts.wide)
            let drawn = wide.hasPrefix("<svg") ? "<div class=\"chart-wide\">\(wide)</div><div class=\"chart-narrow\">\(SVGCharts.draw(chart, r, width: SVGCharts.narrow))</div>" : wide
            return "<figure><div class=\"chartbox\">\(drawn)</div><figcaption>\(escape(caption))</figcaption></figure>"
        }
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
    :root{color-scheme:light dark;--fg:#1d1d1f;--bg:#fff;--muted:#6e6e73;--line:#d2d2d7;--good:#1a7f37;--bad:#cf222e;--warn:#9a6700;--card:#f6f8fa;--link:#0550ae}
    @media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--bg:#0d1117;--muted:#8b949e;--line:#30363d;--good:#3fb950;--bad:#f85149;--warn:#d29922;--card:#161b22;--link:#58a6ff}}
    *{box-sizing:border-box}body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.5 -apple-system,BlinkMacSystemFont,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
    main{max-width:1100px;margin:0 auto;padding:16px}h1{font-size:1.6em;margin:.2em 0;overflow-wrap:anywhere}h2{font-size:1.2em;margin:1.4em 0 .5em}
    .meta,.muted,figcaption,footer{color:var(--muted);font-size:.9em}.hypothesis{font-style:italic}
    code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.92em;overflow-wrap:anywhere}td code{overflow-wrap:break-word}
    .verdict{border-left:6px solid var(--muted);background:var(--card);padding:8px 16px;border-radius:6px}.verdict h2{margin:.3em 0}
    .verdict.ship{border-color:var(--good)}.verdict.stop{border-color:var(--bad)}.verdict.keep_running,.verdict.inconclusive{border-color:var(--warn)}
    .health{list-style:none;padding:0}.health li{padding:4px 0}.badge{display:inline-block;min-width:4.5em;text-align:center;border-radius:4px;font-size:.8em;padding:0 6px;margin-right:6px;background:var(--card);border:1px solid var(--line)}
    .health .alert .badge{color:#fff;background:var(--bad);border-color:var(--bad)}.health .warning .badge{color:var(--warn);border-color:var(--warn)}.health .ok .badge{color:var(--good);border-color:var(--good)}
    .scroll{overflow-x:auto;-webkit-overflow-scrolling:touch}.scroll:focus-visible{outline-offset:-3px}table{border-collapse:collapse;width:100%;font-size:.92em}
    th,td{padding:6px 8px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}th{font-weight:600;white-space:nowrap}
    td.num{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}.ci{color:var(--muted);font-size:.85em}
    td.good{color:var(--good);font-weight:600}td.bad{color:var(--bad);font-weight:600}
    .tag{font-size:.75em;border:1px solid var(--line);border-radius:4px;padding:0 4px;color:var(--muted)}
    figure{margin:0}svg.chart{width:100%;height:auto;display:block}.chart-narrow{display:none}svg .grid{stroke:var(--line);stroke-width:1}svg .zero{stroke:var(--fg);stroke-width:1.5;stroke-dasharray:4 3}
    svg .axisline{stroke:var(--muted)}svg text{fill:var(--fg);font-size:12px}svg .tick{fill:var(--muted);font-size:11px}svg .axis{fill:var(--muted);font-size:12px}svg .label{font-size:12px;paint-order:stroke;stroke:var(--bg);stroke-width:3px;stroke-linejoin:round}
    a{color:var(--link)}:focus-visible{outline:3px solid var(--link);outline-offset:2px}
    @media (max-width:600px){main{padding:10px}body{font-size:14px}th,td{padding:4px 6px}}
    @media (max-width:640px){.chart-wide{display:none}.chart-narrow{display:block}}
    """
}
