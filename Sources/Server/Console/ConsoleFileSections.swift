import ExperimentDefinitions
import Foundation

/// An experiment page's sections about its file: the file as the server loaded it, in a box that
/// scrolls on its own, and its history in git (ConsoleFileHistories), each change with what
/// `validate --against` its parent says of it. Every text from the file or from git is escaped.
enum ConsoleFileSections {
    static func file(_ contents: [UInt8]?, path: String) -> String {
        let esc = ConsolePage.escape
        var b = "<section class=\"file\"><h2>The file as loaded</h2>"
        guard let contents else { return b + "<p class=\"muted\">The file's text was not kept when the folder was loaded.</p></section>" }
        b += "<p class=\"muted\"><code>\(esc(path))</code>, as this server read it when the folder was last loaded.</p>"
        b += "<pre class=\"file-text\" tabindex=\"0\" role=\"region\" aria-label=\"The file as loaded\"><code>\(esc(String(decoding: contents, as: UTF8.self)))</code></pre>"
        return b + "</section>"
    }

    /// `reading`: a reading was asked for (false when the file's text was not kept, so there is none).
    static func history(_ entry: ConsoleFileHistories.Entry?, reading: Bool) -> String {
        let esc = ConsolePage.escape
        var b = "<section class=\"history\"><h2>History</h2>"
        guard let entry else {
            return b + (reading ? "<p class=\"muted\">The file's history is being read from git; reload the page in a moment.</p></section>"
                                : "<p class=\"muted\">The file was not kept when the folder was loaded, so its history is not read.</p></section>")
        }
        switch entry.outcome {
        case .unavailable(let why):
            return b + "<p class=\"muted\">\(esc(why))</p></section>"
        case .failed(let why):
            return b + "<p class=\"error\">The history could not be read from git: \(esc(why))</p></section>"
        case .changes(let changes, let more):
            guard !changes.isEmpty else { return b + "<p class=\"muted\">No commit has changed the file yet.</p></section>" }
            b += "<p class=\"muted\">The commits that changed the file, newest first (read \(esc(RFC3339.format(entry.readAt)))), each with what "
            b += "<code>abctl validate --against</code> its parent says of the file.</p>"
            b += "<div class=\"scroll\"><table><thead><tr><th>time</th><th>author</th><th>subject</th><th>commit</th><th>validate --against its parent</th></tr></thead><tbody>"
            for change in changes {
                b += "<tr><td>\(esc(change.time.map(RFC3339.format) ?? "—"))</td><td>\(esc(change.author))</td><td>\(esc(change.subject))</td>"
                b += "<td><code>\(esc(String(change.commit.prefix(12))))</code></td><td>\(verdict(change))</td></tr>"
            }
            b += "</tbody></table></div>"
            if more { b += "<p class=\"muted\">Older commits are not shown (the latest \(FileHistory.maximumCommits) are).</p>" }
            return b + "</section>"
        }
    }

    /// What the check says of one change: its codes, and the share of enrolled users it moves.
    static func verdict(_ change: FileHistory.Change) -> String {
        let esc = ConsolePage.escape
        if let why = change.unchecked { return "not checked: \(esc(why))" }
        let diagnostics = change.diagnostics ?? []
        guard !diagnostics.isEmpty else { return "nothing to say" }
        var parts = diagnostics.map { "\(esc($0.severity.rawValue)) <code>\(esc($0.code))</code>" }
        // Several diagnostics may name the same code (two fields): each once, in order.
        var seen = Set<String>()
        parts = parts.filter { seen.insert($0).inserted }
        var text = parts.joined(separator: ", ")
        if let share = change.movedShare, share > 0 {
            text += "; moves \(esc(RunningChanges.percent(share))) of the users it had enrolled"
        } else if change.movesAnUnknownShare {
            text += "; moves users, by a share the files cannot give"
        }
        return text
    }
}
