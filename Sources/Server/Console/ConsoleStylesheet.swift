import Reporting

/// The console's one stylesheet: the report's own (the exported HTML report inlines it) and the
/// console's few rules, built into the binary and served under a path holding its content hash,
/// so it may be cached for a year.
enum ConsoleStylesheet {
    static let text = HTMLReportRenderer.stylesheet + "\n" + consoleRules

    static let bytes = Array(text.utf8)

    /// The first 16 hex digits of the stylesheet's SHA-256.
    static let hash = String(decoding: Digest.sha256Hex(bytes).prefix(16), as: UTF8.self)

    /// The file name under `/assets/`.
    static let fileName = "console-\(hash).css"
    static let path = "/assets/" + fileName

    private static let consoleRules = """
    .bar{display:flex;flex-wrap:wrap;gap:8px 16px;align-items:center;justify-content:space-between;padding:8px 16px;border-bottom:1px solid var(--line)}
    .bar a{color:inherit}.bar form{margin:0}.who{color:var(--muted);font-size:.9em}
    button,input,select{font:inherit;color:inherit;background:var(--bg);border:1px solid var(--line);border-radius:4px;padding:4px 8px}
    button{cursor:pointer;background:var(--card)}label{display:block;font-size:.9em;color:var(--muted)}
    .params{display:flex;flex-wrap:wrap;gap:8px 16px;align-items:flex-end;background:var(--card);padding:8px 16px;border-radius:6px;margin:12px 0}
    .params input{max-width:14em}.error{color:var(--bad);font-weight:600}.signin{max-width:28em;margin:10vh auto}.signin input{width:100%}
    .needs td:first-child{border-left:4px solid var(--bad)}.arms{list-style:none;margin:0;padding:0}.arms li{white-space:nowrap}
    svg.cibar{width:120px;height:14px;vertical-align:middle}svg.cibar line{stroke:var(--muted)}svg.cibar .zero{stroke:var(--fg)}
    .verdict-ship{color:var(--good);font-weight:600}.verdict-stop{color:var(--bad);font-weight:600}
    pre.file-text,pre.edit{max-width:100%;overflow:auto;background:var(--card);border:1px solid var(--line);border-radius:6px;padding:8px 12px;font-size:.85em}
    pre.file-text{max-height:28em}pre.file-text:focus{outline:2px solid var(--fg)}
    """
}
