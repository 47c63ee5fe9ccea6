import Reporting

/// The console's one stylesheet: the report's own (the exported HTML report inlines it) and the
/// console's few rules, built into the binary and served under a path holding its content hash.
enum ConsoleStylesheet {
    static let text = HTMLReportRenderer.stylesheet + "\n" + consoleRules

    static let asset = ConsoleAsset(text: text, extension: "css", contentType: "text/css; charset=utf-8")

    private static let consoleRules = """
    .bar{display:flex;flex-wrap:wrap;gap:8px 16px;align-items:center;justify-content:space-between;padding:8px 16px;border-bottom:1px solid var(--line)}
    .bar a{color:inherit}.bar form{margin:0}.who{color:var(--muted);font-size:.9em}
    button,input,select{font:inherit;color:inherit;background:var(--bg);border:1px solid var(--line);border-radius:4px;padding:4px 8px}
    button{cursor:pointer;background:var(--card)}label{display:block;font-size:.9em;color:var(--muted)}
    .params{display:grid;grid-template-columns:repeat(auto-fill,minmax(9em,1fr));gap:8px 16px;align-items:end;background:var(--card);padding:8px 16px;border-radius:6px;margin:12px 0}
    .params p{margin:0}.params input{width:100%}.error{color:var(--bad);font-weight:600}.signin{max-width:28em;margin:10vh auto}.signin input{width:100%}
    .needs td:first-child{border-left:4px solid var(--bad)}.arms{list-style:none;margin:0;padding:0}
    .verdict-cell{min-width:13em}.metric-cell{min-width:17em}.bar+main{max-width:1400px}
    @media (max-width:640px){table.overview,table.overview tbody,table.overview tr,table.overview td{display:block}table.overview thead{display:none}
    table.overview tr{border:1px solid var(--line);border-radius:6px;margin:0 0 12px;padding:4px 0}table.overview td{border:0;text-align:left;min-width:0}
    table.overview td::before{content:attr(data-label) ": ";color:var(--muted);font-size:.85em}table.overview td:first-child::before{content:none}
    table.overview tr.needs{border-left:4px solid var(--bad)}.needs td:first-child{border-left:0}}
    svg.cibar{width:120px;height:14px;vertical-align:middle}svg.cibar line{stroke:var(--muted)}svg.cibar .zero{stroke:var(--fg)}
    .verdict-ship{color:var(--good);font-weight:600}.verdict-stop{color:var(--bad);font-weight:600}
    pre.file-text,pre.edit{max-width:100%;overflow:auto;background:var(--card);border:1px solid var(--line);border-radius:6px;padding:8px 12px;font-size:.85em}
    pre.file-text{max-height:28em}pre.file-text:focus{outline:2px solid var(--fg)}
    .skip{position:absolute;left:-10000px;top:0}.skip:focus{left:8px;top:8px;z-index:1;background:var(--bg);padding:4px 8px}
    main:focus{outline:none}.weights li{white-space:nowrap}svg.weight{width:64px;height:8px;vertical-align:middle;margin-left:4px}svg.weight .track{fill:var(--line)}
    th button{font:inherit;font-weight:600;color:inherit;background:none;border:0;padding:0;cursor:pointer;text-align:inherit}
    th[aria-sort=ascending] button::after{content:" ▲"}th[aria-sort=descending] button::after{content:" ▼"}
    """
}
