import Foundation
import ExperimentDefinitions

/// Renders validation results as text, JSON or GitHub Actions annotations.
enum DiagnosticPrinter {
    /// `strict`: warnings fail the run too, so "ok" is printed only when there are none.
    static func text(_ report: ExperimentLoader.Report, color: Bool, strict: Bool = false) -> String {
        var out = ""
        for d in sorted(report.diagnostics) {
            let label = switch d.severity {
            case .error: Terminal.paint("error", "1;31", color)
            case .warning: Terminal.paint("warning", "1;33", color)
            case .note: Terminal.paint("note", "1;36", color)
            }
            out += "\(d.file):\(d.position.line):\(d.position.column): \(label): \(d.message)\n"
            if let hint = d.hint { out += "    hint: \(hint)\n" }
        }
        let experiments = report.files.filter { !$0.hasSuffix("products.json") && !$0.hasSuffix("placements.json") }.count
        let summary = "\(Plural.count(report.files.count, "file")) checked (\(Plural.count(experiments, "experiment"))): \(counts(report))"
        let passed = report.errorCount == 0 && !(strict && report.warningCount > 0)
        out += passed ? Terminal.paint("ok", "1;32", color) + " -- " + summary + "\n" : summary + "\n"
        return out
    }

    static func json(_ report: ExperimentLoader.Report, strict: Bool = false) -> String {
        let diagnostics: [JSONValue] = sorted(report.diagnostics).map { d in
            var members: [(String, JSONValue)] = [
                ("file", .string(d.file)), ("line", .number(Double(d.position.line))), ("column", .number(Double(d.position.column))),
                ("severity", .string(d.severity.rawValue)), ("code", .string(d.code)), ("message", .string(d.message)),
                ("hint", d.hint.map(JSONValue.string) ?? .null),
            ]
            // A change since REF: which fields, and the share of REF's enrolled users whose answer changes (null: not computable).
            if let change = d.change {
                members.append(("fields", .array(change.fields.map(JSONValue.string))))
                members.append(("share", change.share.map(JSONValue.number) ?? .null))
            }
            return .object(members)
        }
        let root: JSONValue = .object([
            ("valid", .bool(report.errorCount == 0)),
            // Whether the run passed: `valid`, and with --strict no warning either (the exit code's answer).
            ("passed", .bool(report.errorCount == 0 && !(strict && report.warningCount > 0))),
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
            // GitHub's three levels: error, warning, notice.
            out += "::\(d.severity == .note ? "notice" : d.severity.rawValue) file=\(escapeProperty(d.file)),line=\(d.position.line),col=\(d.position.column),title=\(escapeProperty("abctl validate: \(d.code)"))::\(escapeData(message))\n"
        }
        out += "abctl validate: \(Plural.count(report.files.count, "file")) checked, \(counts(report))\n"
        return out
    }

    private static func sorted(_ diagnostics: [Diagnostic]) -> [Diagnostic] {
        // Stable by file then position, keeping discovery order for ties; a file's notes (checks skipped
        // because of its problems) after its problems.
        diagnostics.enumerated().sorted { a, b in
            let x = (a.element.severity == .note ? 1 : 0, a.element.position.line, a.element.position.column, a.offset)
            let y = (b.element.severity == .note ? 1 : 0, b.element.position.line, b.element.position.column, b.offset)
            return a.element.file != b.element.file ? a.element.file < b.element.file : x < y
        }.map(\.element)
    }

    static func escapeData(_ s: String) -> String {
        s.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "\r", with: "%0D").replacingOccurrences(of: "\n", with: "%0A")
    }

    static func escapeProperty(_ s: String) -> String {
        escapeData(s).replacingOccurrences(of: ":", with: "%3A").replacingOccurrences(of: ",", with: "%2C")
    }

    /// "1 error, 2 warnings", and the notes of skipped checks when there are any.
    private static func counts(_ report: ExperimentLoader.Report) -> String {
        let notes = report.diagnostics.count { $0.severity == .note }
        return "\(plural(report.errorCount, "error")), \(plural(report.warningCount, "warning"))" + (notes > 0 ? ", \(plural(notes, "note"))" : "")
    }

    private static func plural(_ n: Int, _ word: String) -> String { Plural.count(n, word) }
}
