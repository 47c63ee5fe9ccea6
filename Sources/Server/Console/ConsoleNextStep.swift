import ExperimentDefinitions
import Reporting

/// The report's one next step (its decision) in words and as the edit to the experiment's file
/// that makes it. It is read from the verdict alone, so it never says other than the report:
/// `ship` sets the status to shipped with the winner; `stop` sets it to stopped (the control is
/// kept: no one is assigned an arm any more); `keep_running` and `inconclusive` edit nothing.
struct ConsoleNextStep: Equatable {
    var words: String
    /// The members to write in the file, as JSON text (`"status": "shipped", "winner": "ai"`); nil: no edit.
    var edit: String?
    /// The file already says what the edit would: nothing to do.
    var done: Bool

    init(_ decision: Decision, file e: Experiment) {
        self.init(verdict: decision.verdict, winner: decision.winner, file: e)
    }

    /// From a verdict and its winner alone, as a stored report keeps them.
    init(verdict: Decision.Verdict, winner: String?, file e: Experiment) {
        switch verdict {
        case .ship:
            guard let winner else {
                self.init(words: "Ship: the report names no winner, so there is no edit to make yet.", edit: nil, done: false)
                return
            }
            let done = e.status == .shipped && e.winner == winner
            self.init(words: done ? "Ship \(winner): the file already ships it." : "Ship \(winner): set the file's status to shipped, with \(winner) as the winner.",
                      edit: "\"status\": \"shipped\", \"winner\": " + Self.string(winner), done: done)
        case .stop:
            let done = e.status == .stopped
            self.init(words: done ? "Stop: the file already says stopped." : "Stop and keep the control: set the file's status to stopped, so no one is assigned an arm any more.",
                      edit: "\"status\": \"stopped\"", done: done)
        case .keepRunning:
            self.init(words: "Keep it running: no edit to the file.", edit: nil, done: false)
        case .inconclusive:
            self.init(words: "Inconclusive: the report asks for no edit; its reasons say what to decide on.", edit: nil, done: false)
        }
    }

    private init(words: String, edit: String?, done: Bool) {
        self.words = words
        self.edit = edit
        self.done = done
    }

    /// A JSON string literal.
    static func string(_ s: String) -> String { String(decoding: JSONWriter.bytes(.string(s)), as: UTF8.self) }

    /// The page's section (every text escaped).
    var html: String {
        let esc = ConsolePage.escape
        var b = "<section class=\"next-step\"><h2>Next step</h2><p>\(esc(words))</p>"
        if let edit, !done {
            b += "<p>The edit to the file (then <code>abctl validate</code> and a review, as any change):</p><pre class=\"edit\"><code>\(esc(edit))</code></pre>"
        }
        return b + "</section>"
    }
}
