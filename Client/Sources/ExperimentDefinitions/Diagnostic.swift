/// One problem found in an experiment file, with where it is and how to fix it.
public struct Diagnostic: Sendable, Equatable {
    public enum Severity: String, Sendable {
        /// `note`: checks that were skipped and why (a file they need could not be read), so a
        /// broken file is reported once, not again by every check that reads it.
        case error, warning, note
    }

    /// What a change since `validate --against REF` touched, for the changes that move users.
    public struct Change: Sendable, Equatable {
        /// The fields changed, as paths: `variants[1].weight`, `namespace.range`, `targeting.country`.
        public var fields: [String]
        /// The share of REF's enrolled users whose answer changes, in [0, 1]; nil when it cannot be
        /// computed from the files (targeting, conditions, learned weights).
        public var share: Double?

        public init(fields: [String], share: Double?) {
            self.fields = fields
            self.share = share
        }
    }

    public var file: String
    public var position: SourcePosition
    public var severity: Severity
    /// A stable machine-readable name, e.g. `unknown_key`, `namespace_overlap`.
    public var code: String
    public var message: String
    /// What to do about it.
    public var hint: String?
    /// Set on `reshuffles_running_experiment` and `running_arm_changed`.
    public var change: Change?

    public init(file: String, position: SourcePosition, severity: Severity = .error, code: String, message: String, hint: String? = nil,
                change: Change? = nil) {
        self.file = file
        self.position = position
        self.severity = severity
        self.code = code
        self.message = message
        self.hint = hint
        self.change = change
    }

    /// `file:line:column: severity: message`, as `abctl validate` prints it and /healthz lists it.
    public var line: String { "\(file):\(position.line):\(position.column): \(severity.rawValue): \(message)" }
}

/// Collects diagnostics for one file while it is decoded.
final class DiagnosticSink {
    let file: String
    private(set) var diagnostics: [Diagnostic] = []

    init(file: String) { self.file = file }

    var hasErrors: Bool { diagnostics.contains { $0.severity == .error } }
    var errorCount: Int { diagnostics.count { $0.severity == .error } }

    func error(_ code: String, at position: SourcePosition, _ message: String, hint: String? = nil) {
        diagnostics.append(Diagnostic(file: file, position: position, code: code, message: message, hint: hint))
    }

    func warning(_ code: String, at position: SourcePosition, _ message: String, hint: String? = nil) {
        diagnostics.append(Diagnostic(file: file, position: position, severity: .warning, code: code, message: message, hint: hint))
    }
}
