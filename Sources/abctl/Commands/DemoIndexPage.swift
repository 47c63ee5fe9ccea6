import Events
import ExperimentDefinitions
import Foundation
import Reporting

/// `Reports/index.html`: one page linking every report the demo wrote, each with its verdict in a line.
/// Self-contained like the reports (no scripts, no outside resources), readable from 390 px up.
enum DemoIndexPage {
    static func render(_ reports: [Report], holdouts: Set<String>, products: Products, login: Double, asOf: Date) -> String {
        var items = ""
        for r in reports {
            let id = escape(r.experimentID)
            if holdouts.contains(r.experimentID) {
                items += """
                <li class="holdout"><h2><a href="\(id).html">\(escape(r.experimentName))</a></h2>
                <p class="verdict"><strong>\(escape(DemoSummary.heldOut(r)))</strong></p>
                <p class="why">\(escape(DemoSummary.together(r))): what all the experiments add up to, each user counted once.</p>
                <p class="muted"><code>\(id)</code> · <a href="\(id).md">Markdown</a> · <a href="\(id).json">JSON</a> · forecast: \(escape(DemoSummary.forecast(r)))</p></li>

                """
                continue
            }
            let reason = r.decision.reasons.first.map { "<p class=\"why\">\(escape($0))</p>" } ?? ""
            let stops = r.safeguards.isEmpty ? "" : "<p class=\"safeguard\">\(escape(DemoSummary.safeguards(r)))</p>"
            let bandit = DemoSummary.bandit(r).map { "<p class=\"why\">\(escape($0))</p>" } ?? ""
            items += """
            <li class="\(escape(r.decision.verdict.rawValue))"><h2><a href="\(id).html">\(escape(r.experimentName))</a></h2>
            <p class="verdict"><strong>\(escape(DemoSummary.verdict(r)))</strong> · \(Self.count(r.users)) users</p>\(reason)\(bandit)\(stops)
            <p class="muted"><code>\(id)</code> · <a href="\(id).md">Markdown</a> · <a href="\(id).json">JSON</a> · forecast: \(escape(DemoSummary.forecast(r)))</p></li>

            """
        }
        return """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
        <title>abctl demo: the Chorus+ experiments</title>
        <style>\(css)</style>
        </head>
        <body><main>
        <h1>The Chorus+ experiments</h1>
        <p class="muted">abctl demo: a simulated story, read as of \(escape(RFC3339.format(asOf))). Each report is split by country and platform.\([DemoSummary.storefronts(products), DemoSummary.signUps(login)].compactMap { $0.map { " " + escape($0) } }.joined())</p>
        <ul class="reports">
        \(items)</ul>
        </main></body>
        </html>

        """
    }

    static func count(_ n: Int) -> String {
        let f = NumberFormatter()
        f.numberStyle = .decimal
        f.locale = Locale(identifier: "en_US_POSIX")
        f.groupingSeparator = ","
        f.usesGroupingSeparator = true
        return f.string(from: NSNumber(value: n)) ?? String(n)
    }

    static func escape(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    static let css = """
    :root{color-scheme:light dark;--fg:#1d1d1f;--bg:#fff;--muted:#6e6e73;--line:#d2d2d7;--good:#1a7f37;--bad:#cf222e;--warn:#9a6700;--card:#f6f8fa}
    @media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--bg:#0d1117;--muted:#8b949e;--line:#30363d;--good:#3fb950;--bad:#f85149;--warn:#d29922;--card:#161b22}}
    *{box-sizing:border-box}body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.5 -apple-system,BlinkMacSystemFont,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
    main{max-width:900px;margin:0 auto;padding:16px}h1{font-size:1.6em;margin:.2em 0}h2{font-size:1.15em;margin:0 0 .3em}
    a{color:inherit}.muted{color:var(--muted);font-size:.9em}code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;overflow-wrap:anywhere}
    .reports{list-style:none;padding:0}.reports li{border-left:6px solid var(--muted);background:var(--card);border-radius:6px;padding:10px 16px;margin:12px 0;overflow-wrap:anywhere}
    .reports li.ship{border-color:var(--good)}.reports li.holdout{border-color:var(--fg)}.reports li.stop{border-color:var(--bad)}.reports li.keep_running,.reports li.inconclusive{border-color:var(--warn)}
    .reports p{margin:.3em 0}.safeguard{color:var(--bad)}
    @media (max-width:600px){main{padding:10px}body{font-size:14px}}
    """
}
