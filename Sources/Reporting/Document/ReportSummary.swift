import Foundation

/// One report in a line, for a list of experiments (the console's overview): the verdict as the
/// document's verdict section says it, and each arm's difference on the primary metric with its
/// interval, worded as the document's comparison table words them.
public struct ReportSummary: Sendable, Equatable {
    public enum Tone: String, Sendable { case good, bad }

    public struct Arm: Sendable, Equatable {
        public var variant: String
        public var difference: String
        public var interval: String
        /// Clearly better or worse; nil when the interval does not say.
        public var tone: Tone?
        /// The interval's ends, for a small plot; nil when there is none yet.
        public var lower: Double?
        public var upper: Double?
        public var point: Double?
    }

    /// "ship ai", as the report's verdict section is titled after its label "Verdict:" (a list
    /// with a column named `verdict` shows it under that name).
    public var verdict: String
    /// The verdict's code (`ship`, `keep_running`, `stop`, `inconclusive`).
    public var verdictCode: String
    /// When the decision is expected, in words; nil when the report says nothing of it.
    public var eta: String?
    public var primaryMetric: String
    public var arms: [Arm]

    public init(_ r: Report) {
        let doc = ReportDocument(r)
        verdict = ReportDocument.verdictWords(r).map(Self.plain).joined()
        verdictCode = r.decision.verdict.rawValue
        eta = Wording.eta(r)
        primaryMetric = doc.primaryMetric
        arms = r.comparisons.filter { $0.metric == r.primaryMetric }.map { c in
            let tone = ReportDocument.tone(c.reading)
            return Arm(variant: c.variant, difference: Wording.difference(c.metric, c.absoluteDiff, in: r.currency),
                       interval: Wording.differenceInterval(c.metric, c.absoluteCI, in: r.currency),
                       tone: tone.map { $0 == .good ? .good : .bad },
                       lower: c.absoluteCI?.lower, upper: c.absoluteCI?.upper, point: c.absoluteDiff)
        }
    }

    private static func plain(_ part: ReportDocument.Inline) -> String {
        switch part {
        case .text(let s), .code(let s): s
        case .mark(let tone): tone == .good ? "▲" : "▼"
        }
    }
}
