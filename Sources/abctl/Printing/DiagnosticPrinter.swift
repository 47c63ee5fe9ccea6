import Foundation
import ExperimentDefinitions

/// Renders validation results as text, JSON or GitHub Actions annotations.
enum DiagnosticPrinter {
    static func text(_ report: ExperimentLoader.Report, color: Bool) -> String {
        var out = ""
        for d in sorted(report.diagnostics) {
            let label = d.severity == .error ? Terminal.paint("error", "1;31", color) : Terminal.paint("warning", "1;33", color)
            out += "\(d.file):\(d.position.line):\(d.position.column): \(label): \(d.message)\n"
            if let hint = d.hint { out += "    hint: \(hint)\n" }
        }
        let experiments = report.files.filter { !$0.hasSuffix("products.json") && !$0.hasSuffix("placements.json") }.count
        let summary = "\(report.files.count) files checked (\(experiments) experiments): \(plural(report.errorCount, "error")), \(plural(report.warningCount, "warning"))"
        out += report.errorCount == 0 ? Terminal.paint("ok", "1;32", color) + " -- " + summary + "\n" : summary + "\n"
        return out
    }

    static func json(_ report: ExperimentLoader.Report) -> String {
        let diagnostics: [JSONValue] = sorted(report.diagnostics).map { d in
            .object([
                ("file", .string(d.file)), ("line", .number(Double(d.position.line))), ("column", .number(Double(d.position.column))),
                ("severity", .string(d.severity.rawValue)), ("code", .string(d.code)), ("message", .string(d.message)),
                ("hint", d.hint.map(JSONValue.string) ?? .null),
            ])
        }
        let root: JSONValue = .object([
            ("valid", .bool(report.errorCount == 0)),
            ("files", .array(report.files.map(JSONValue.string))),
            ("errors", .number(Double(report.errorCount))),
            ("warnings", .number(Double(report.warningCount))),
            ("diagnostics", .array(diagnostics)),
        ])
        return root.serialized() + "\n"
    }

    /// `::error file=…,line=…,col=…,title=…::message` lines, escaped per the workflow-command rules.
    static func github(_ report: ExperimentLoader.Report) -> String {
        var out = ""
        for d in sorted(report.diagnostics) {
            let message = d.hint.map { "\(d.message). Hint: \($0)" } ?? d.message
            out += "::\(d.severity.rawValue) file=\(escapeProperty(d.file)),line=\(d.position.line),col=\(d.position.column),title=\(escapeProperty("abctl validate: \(d.code)"))::\(escapeData(message))\n"
        }
        out += "abctl validate: \(report.files.count) files checked, \(plural(report.errorCount, "error")), \(plural(report.warningCount, "warning"))\n"
        return out
    }

    private static func sorted(_ diagnostics: [Diagnostic]) -> [Diagnostic] {
        // Stable by file then position, keeping discovery order for ties.
        diagnostics.enumerated().sorted { a, b in
            (a.element.file, a.element.position.line, a.element.position.column, a.offset) < (b.element.file, b.element.position.line, b.element.position.column, b.offset)
        }.map(\.element)
    }

    static func escapeData(_ s: String) -> String {
        s.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "\r", with: "%0D").replacingOccurrences(of: "\n", with: "%0A")
    }

    static func escapeProperty(_ s: String) -> String {
        escapeData(s).replacingOccurrences(of: ":", with: "%3A").replacingOccurrences(of: ",", with: "%2C")
    }

    private static func plural(_ n: Int, _ word: String) -> String { "\(n) \(word)\(n == 1 ? "" : "s")" }
}
