import Events
import ExperimentDefinitions
import Foundation
import HTTPTransport
import Reporting

/// `GET /`: every experiment of the folder, one row each, the ones that need someone first
/// (a stop in force, a `ship` or `stop` verdict the file has not acted on, a health alert, a
/// running experiment with no exposure for 24 hours or past its end), then running ones by
/// decision date, then the rest; above them, the notifications that failed, if any. The reports
/// come from the console's background slot.
struct ConsoleOverview: Responder {
    let gate: ConsoleGate
    let snapshots: SnapshotHolder
    let reports: ConsoleReports
    let outbox: any NotificationOutbox

    func respond(to request: APIRequest) throws -> HandlerOutcome {
        let viewer: ConsoleViewer
        switch ConsoleAccess.page(request, gate: gate) {
        case .failure(let refusal): return .response(refusal.response)
        case .success(let signedIn): viewer = signedIn
        }
        let snapshot = snapshots.snapshot
        let now = reports.clock ?? Date()
        let failed = ConsoleFailedNotifications.read(outbox)
        return .deferred { [reports] respond in
            let started = reports.all(snapshot, done: { entries in
                respond(ConsolePage.response(200, ConsolePage.html(title: "Experiments", viewer: viewer,
                                                                   main: Self.main(entries, snapshot: snapshot, now: now, failed: failed))))
            })
            if !started, let kept = reports.kept(snapshot) {
                // Another page is computing: these figures are the ones kept from before.
                respond(ConsolePage.response(200, ConsolePage.html(title: "Experiments", viewer: viewer,
                                                                   main: Self.main(kept, snapshot: snapshot, now: now, failed: failed))))
            } else if !started {
                respond(ConsolePage.message(503, title: "Busy", "The console is computing reports already; retry in \(reports.background.retryAfterSeconds) s.",
                                            viewer: viewer, extra: [("Retry-After", String(reports.background.retryAfterSeconds))]))
            }
        }
    }

    /// Why an experiment needs someone, in words; empty when it does not.
    static func needs(_ e: Experiment, _ outcome: ConsoleReports.Outcome, now: Date) -> [String] {
        guard case .report(let r) = outcome else { return ["its report could not be computed"] }
        var why: [String] = []
        if r.safeguards.contains(where: \.inForce) { why.append("a safeguard stop is in force") }
        if e.status == .running, r.decision.verdict == .ship || r.decision.verdict == .stop {
            why.append("the verdict is \(r.decision.verdict.rawValue) and the file still says running")
        }
        if r.health.contains(where: { $0.level == .alert }) { why.append("a health check alerts") }
        if e.status == .running {
            if let end = e.end, end < now { why.append("it is past its end") }
            if let last = r.lastExposure, now.timeIntervalSince(last) > 86_400 { why.append("no exposure for 24 hours") }
        }
        return why
    }

    /// The rows in the page's order: needing someone, then running by decision date, then the rest.
    static func ordered(_ entries: [(Experiment, ConsoleReports.Entry)], now: Date) -> [(Experiment, ConsoleReports.Entry, [String])] {
        let rows = entries.map { ($0.0, $0.1, needs($0.0, $0.1.outcome, now: now)) }
        func eta(_ entry: ConsoleReports.Entry) -> Date {
            if case .report(let r) = entry.outcome, let eta = r.decision.eta { return eta }
            return .distantFuture
        }
        let urgent = rows.filter { !$0.2.isEmpty }
        let running = rows.filter { $0.2.isEmpty && $0.0.status == .running }.enumerated()
            .sorted { (eta($0.element.1), $0.offset) < (eta($1.element.1), $1.offset) }.map(\.element)
        let rest = rows.filter { $0.2.isEmpty && $0.0.status != .running }
        return urgent + running + rest
    }

    static func main(_ entries: [(Experiment, ConsoleReports.Entry)], snapshot: ExperimentSnapshot, now: Date,
                     failed: [OutboxNotification]?) -> String {
        let esc = ConsolePage.escape
        var b = "<h1>Experiments</h1>"
        let computed = entries.map(\.1.computedAt).min()
        b += "<p class=\"muted\">\(entries.count) experiments · figures as of \(esc(computed.map(RFC3339.format) ?? "now"))</p>"
        b += ConsoleFailedNotifications.section(failed)
        b += HTMLReportRenderer.scrollBox(label: "Every experiment") + "<table class=\"overview\"><thead><tr>"
        b += columns.map { "<th>\(esc($0))</th>" }.joined() + "</tr></thead><tbody>"
        for (e, entry, needs) in ordered(entries, now: now) {
            let placements = snapshot.catalog.placements.filter { $0.audiences.contains { $0.experimentID == e.id } }.map(\.id)
            var name = "<a href=\"/experiments/\(esc(ConsolePage.percentEncode(e.id)))\">\(esc(e.name))</a><br><code>\(esc(e.id))</code>"
            if !needs.isEmpty { name += "<br><span class=\"error\">needs someone: \(esc(needs.joined(separator: "; ")))</span>" }
            var cells: [(html: String, cls: String?)] = [
                (name, nil), (esc(e.status.rawValue), nil), (placements.map { "<code>\(esc($0))</code>" }.joined(separator: " "), nil),
                (esc(e.start.map { String(RFC3339.format($0).prefix(10)) } ?? "—"), nil),
                (e.start.map { String(max(0, Int(now.timeIntervalSince($0) / 86_400))) } ?? "—", "num"),
            ]
            switch entry.outcome {
            case .failed(let why):
                cells.append((esc(why), "error\" colspan=\"6"))
            case .report(let r):
                let summary = ReportSummary(r)
                var verdict = "<span class=\"verdict-\(esc(summary.verdictCode))\">\(esc(summary.verdict))</span>"
                if let eta = summary.eta { verdict += "<br><span class=\"ci\">\(esc(eta))</span>" }
                let arms = summary.arms.map { arm in
                    "<li><code>\(esc(arm.variant))</code> \(esc(arm.difference)) <span class=\"ci\">\(esc(arm.interval))</span> \(intervalPlot(arm))</li>"
                }.joined()
                let alerts = r.health.filter { $0.level == .alert }.count, warnings = r.health.filter { $0.level == .warning }.count
                let stops = r.safeguards.filter(\.inForce)
                cells += [
                    (String(r.users), "num"), (verdict, "verdict-cell"),
                    ("<span class=\"ci\">\(esc(summary.primaryMetric))</span><ul class=\"arms\">\(arms)</ul>", "metric-cell"),
                    (alerts == 0 && warnings == 0 ? "ok" : "\(alerts) alert\(alerts == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s")", nil),
                    (stops.isEmpty ? "—" : stops.map { "<code>\(esc($0.arm))</code> stopped on \(esc($0.metric))" }.joined(separator: "<br>"), nil),
                    (r.allocation.flatMap { a in a.periods.last.map { weights(a.variants, $0.weights) } } ?? "—", nil),
                ]
            }
            // Each cell names its column, so a phone can show a row as a card (the stylesheet hides the header there).
            b += needs.isEmpty ? "<tr>" : "<tr class=\"needs\">"
            b += zip(columns, cells).map { column, cell in
                "<td data-label=\"\(esc(column))\"\(cell.cls.map { " class=\"\($0)\"" } ?? "")>\(cell.html)</td>"
            }.joined()
            b += "</tr>"
        }
        b += "</tbody></table></div>"
        return b
    }

    static let columns = ["experiment", "status", "placements", "start", "days", "people", "verdict", "primary metric: difference (interval)",
                          "health", "safeguards", "weights"]

    /// A bandit's weights, read at a glance: each arm's share in percent with a bar of that length
    /// in the arm's colour (the charts' colours; the figures are in the text beside it).
    static func weights(_ variants: [String], _ weights: [Double]) -> String {
        let total = max(1e-300, weights.reduce(0, +))
        return "<ul class=\"arms weights\">" + zip(variants, weights).enumerated().map { i, arm in
            let percent = arm.1 / total * 100
            return "<li><code>\(ConsolePage.escape(arm.0))</code> \(Int(percent.rounded()))%"
                + "<svg class=\"weight\" viewBox=\"0 0 100 8\" aria-hidden=\"true\"><rect class=\"track\" width=\"100\" height=\"8\"/>"
                + "<rect width=\"\(String(format: "%.1f", percent))\" height=\"8\" fill=\"\(HTMLReportRenderer.chartColor(i))\"/></svg></li>"
        }.joined() + "</ul>"
    }

    /// A small plot of an arm's interval around zero (SVG presentation attributes, no style);
    /// its figures are in the text beside it.
    static func intervalPlot(_ arm: ReportSummary.Arm) -> String {
        guard let lower = arm.lower, let upper = arm.upper, let point = arm.point, lower.isFinite, upper.isFinite else { return "" }
        let reach = max(abs(lower), abs(upper), 1e-12)
        func x(_ v: Double) -> String { String(format: "%.1f", 60 + 55 * v / reach) }
        let colour = arm.tone == .good ? "#1a7f37" : arm.tone == .bad ? "#cf222e" : "#6e6e73"
        return "<svg class=\"cibar\" viewBox=\"0 0 120 14\" aria-hidden=\"true\"><line class=\"zero\" x1=\"60\" y1=\"1\" x2=\"60\" y2=\"13\"/>"
            + "<line x1=\"\(x(lower))\" y1=\"7\" x2=\"\(x(upper))\" y2=\"7\" stroke-width=\"2\" stroke=\"\(colour)\"/>"
            + "<circle cx=\"\(x(point))\" cy=\"7\" r=\"3\" fill=\"\(colour)\"/></svg>"
    }
}
