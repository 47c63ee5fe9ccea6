import Events
import ExperimentDefinitions
import Foundation

/// The report as GitHub-flavoured Markdown: `ReportDocument` written as headings, lists and pipe
/// tables. Text from experiment files and events is escaped so it cannot break a table or inject
/// HTML. Charts are left to the HTML report.
public enum MarkdownReportRenderer {
    public static func render(_ r: Report) -> String { write(ReportDocument(r)) }

    static func write(_ doc: ReportDocument) -> String {
        var out = "# \(esc(doc.title))\n\n`\(code(doc.experimentID))` · \(doc.facts.map(esc).joined(separator: " · ")) · primary metric: **\(esc(doc.primaryMetric))**\n"
        if let h = doc.hypothesis { out += "\n> \(esc(h))\n" }
        for section in doc.sections {
            let blocks = section.blocks.compactMap(block)
            guard !blocks.isEmpty else { continue }
            out += "\n## \(inline(section.title))\n\n" + blocks.joined(separator: "\n\n") + "\n"
        }
        return out
    }

    static func mark(_ tone: ReportDocument.Tone) -> String { tone == .good ? "✅" : "🔻" }

    static func inline(_ parts: [ReportDocument.Inline]) -> String {
        parts.map { part in
            switch part {
            case .text(let s): esc(s)
            case .code(let s): "`\(code(s))`"
            case .mark(let tone): mark(tone)
            }
        }.joined()
    }

    static func block(_ b: ReportDocument.Block) -> String? {
        switch b {
        case .paragraph(let parts, let style):
            return style == .strong ? "**\(inline(parts))**" : inline(parts)
        case .list(let items):
            return items.map { item in
                let badge: String = switch item.badge {
                case nil: ""
                case .alert?, .stop?: "🛑 "
                case .warning?: "⚠️ "
                case .info?: "ℹ️ "
                case .ok?: "✅ "
                case .reset?: "↩️ "
                }
                return "- \(badge)\(esc(item.text))"
            }.joined(separator: "\n")
        case .table(let t):
            var lines = ["| " + t.columns.map { esc($0.header) }.joined(separator: " | ") + " |",
                         "|" + t.columns.map { $0.align == .left ? "---" : "---:" }.joined(separator: "|") + "|"]
            for row in t.rows {
                lines.append("| " + row.map { cell in
                    var text = esc(cell.text) + (cell.tag.map { " (\(esc($0)))" } ?? "")
                    // An interval is the report's own figures: brackets stay brackets, only a pipe could break the cell.
                    if let detail = cell.detail, !detail.isEmpty { text += " " + detail.replacingOccurrences(of: "|", with: "\\|") }
                    if cell.marked, let tone = cell.tone { text += " " + mark(tone) }
                    return text
                }.joined(separator: " | ") + " |")
            }
            return lines.joined(separator: "\n")
        case .chart:
            return nil
        }
    }

    /// Escapes what Markdown and HTML would read as syntax in text from experiment files or events:
    /// emphasis, code, links, table pipes, strikethrough and tags. Brackets, parentheses, `#`, `+` and `!`
    /// mid-line are plain text in GitHub and chat Markdown, so a pasted report reads as written; so is
    /// a "<" that cannot open a tag ("p < 0.0001", "<0.1%").
    static func esc(_ s: String) -> String {
        var out = ""
        let chars = Array(TextReportRenderer.clean(s))
        for (i, ch) in chars.enumerated() {
            let next = i + 1 < chars.count ? chars[i + 1] : nil
            switch ch {
            // "&" could open an entity, and "<" a tag or comment only before a letter, "/", "!" or "?".
            case "&" where next.map { $0.isLetter || $0 == "#" } ?? false: out += "&amp;"
            case "<" where next.map { $0.isLetter || "/!?".contains($0) } ?? false: out += "&lt;"
            // An underscore inside a word (paid_conversion) is never emphasis in GitHub Markdown.
            case "_" where i > 0 && (chars[i - 1].isLetter || chars[i - 1].isNumber) && (next.map { $0.isLetter || $0.isNumber } ?? false):
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
