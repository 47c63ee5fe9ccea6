/// One problem found in an experiment file, with where it is and how to fix it.
public struct Diagnostic: Sendable, Equatable {
    public enum Severity: String, Sendable {
        case error, warning
    }

    public var file: String
    public var position: SourcePosition
    public var severity: Severity
    /// A stable machine-readable name, e.g. `unknown_key`, `namespace_overlap`.
    public var code: String
    public var message: String
    /// What to do about it.
    public var hint: String?

    public init(file: String, position: SourcePosition, severity: Severity = .error, code: String, message: String, hint: String? = nil) {
        self.file = file
        self.position = position
        self.severity = severity
        self.code = code
        self.message = message
        self.hint = hint
    }
}

/// Collects diagnostics for one file while it is decoded.
final class DiagnosticSink {
    let file: String
    private(set) var diagnostics: [Diagnostic] = []

    init(file: String) { self.file = file }

    var hasErrors: Bool { diagnostics.contains { $0.severity == .error } }

    func error(_ code: String, at position: SourcePosition, _ message: String, hint: String? = nil) {
        diagnostics.append(Diagnostic(file: file, position: position, code: code, message: message, hint: hint))
    }

    func warning(_ code: String, at position: SourcePosition, _ message: String, hint: String? = nil) {
        diagnostics.append(Diagnostic(file: file, position: position, severity: .warning, code: code, message: message, hint: hint))
    }
}
