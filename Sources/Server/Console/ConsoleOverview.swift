import Events
import ExperimentDefinitions
import Foundation
import HTTPTransport
import Reporting

/// `GET /`: every experiment of the folder, one row each, the ones that need someone first
/// (a stop in force, a `ship` or `stop` verdict the file has not acted on, a health alert, a
/// running experiment with no exposure for 24 hours or past its end), then running ones by
/// decision date, then the rest; above them, the notifications that failed, if any. The figures
/// are the stored ones (`ConsoleRefresher`), read from the store: the page computes nothing.
struct ConsoleOverview: Responder {
    let gate: ConsoleGate
    let snapshots: SnapshotHolder
    let reports: ConsoleReports
    let outbox: any NotificationOutbox
    let refreshSeconds: Double

    /// One experiment's stored figures; nil when none are stored yet.
    struct Entry: Sendable {
        var report: StoredConsoleReport
        var digest: ConsoleDigest
    }

    func respond(to request: APIRequest) throws -> HandlerOutcome {
        let viewer: ConsoleViewer
        switch ConsoleAccess.page(request, gate: gate) {
        case .failure(let refusal): return .response(refusal.response)
        case .success(let signedIn): viewer = signedIn
        }
        let snapshot = snapshots.snapshot
        let now = reports.clock ?? Date()
        let stored: [String: StoredConsoleReport]
        do {
            stored = try reports.store.consoleReports(bodies: false)
        } catch {
            reports.log.write(level: .error, "cannot read the stored console reports", ["error": .string(String(describing: error))])
            return .response(ConsoleAccess.unavailable())
        }
        let entries = snapshot.catalog.experiments.map { e -> (Experiment, Entry?) in
            guard let report = stored[e.id] else { return (e, nil) }
            do {
                return (e, Entry(report: report, digest: try ConsoleDigest(json: report.summary)))
            } catch {
                reports.log.write(level: .error, "cannot read a stored console report", ["experiment": .string(e.id), "error": .string(String(describing: error))])
                return (e, nil)
            }
        }
        let failed = ConsoleFailedNotifications.read(outbox)
        return .response(ConsolePage.response(200, ConsolePage.html(title: "Experiments", viewer: viewer,
                                                                     main: Self.main(entries, snapshot: snapshot, now: now, failed: failed,
                                                                                     refreshSeconds: refreshSeconds))))
    }

    /// Why an experiment needs someone, in words; empty when it does not.
    static func needs(_ e: Experiment, _ d: ConsoleDigest, now: Date) -> [String] {
        var why: [String] = []
        if !d.stops.isEmpty { why.append("a safeguard stop is in force") }
        if e.status == .running, d.verdict == .ship || d.verdict == .stop {
            why.append("the verdict is \(d.verdict.rawValue) and the file still says running")
        }
        if d.alerts > 0 { why.append("a health check alerts") }
        if e.status == .running {
            if let end = e.end, end < now { why.append("it is past its end") }
            if let last = d.lastExposure, now.timeIntervalSince(last) > 86_400 { why.append("no exposure for 24 hours") }
        }
        return why
    }

    /// The rows in the page's order: needing someone, then running by decision date, then the rest
    /// (those without figures yet among the rest).
    static func ordered(_ entries: [(Experiment, Entry?)], now: Date) -> [(Experiment, Entry?, [String])] {
        typealias Row = (experiment: Experiment, entry: Entry?, needs: [String])
        let rows: [Row] = entries.map { e, entry in (e, entry, entry.map { needs(e, $0.digest, now: now) } ?? []) }
        func eta(_ row: Row) -> Date { row.entry?.digest.eta ?? .distantFuture }
        func isRunning(_ row: Row) -> Bool { row.experiment.status == .running && row.entry != nil }
        let urgent = rows.filter { !$0.needs.isEmpty }
        let running = rows.filter { $0.needs.isEmpty && isRunning($0) }.enumerated()
            .sorted { (eta($0.element), $0.offset) < (eta($1.element), $1.offset) }.map(\.element)
        let rest = rows.filter { $0.needs.isEmpty && !isRunning($0) }
        return (urgent + running + rest).map { ($0.experiment, $0.entry, $0.needs) }
    }

    static func main(_ entries: [(Experiment, Entry?)], snapshot: ExperimentSnapshot, now: Date,
                     failed: [OutboxNotification]?, refreshSeconds: Double) -> String {
        let esc = ConsolePage.escape
        var b = "<h1>Experiments</h1>"
        let stored = entries.compactMap(\.1)
        let oldest = stored.map(\.report.generatedAt).min(), computed = stored.map(\.report.computedAt).min()
        b += "<p class=\"muted\">\(entries.count) experiments · figures as of \(esc(oldest?.rfc3339 ?? "—"))"
        if let computed { b += ", computed from \(esc(computed.rfc3339)) by the server that keeps them fresh (after new events, at most every \(Metrics.format(refreshSeconds)) s)" }
        b += "</p>"
        b += ConsoleFailedNotifications.section(failed)
        b += HTMLReportRenderer.scrollBox(label: "Every experiment") + "<table class=\"overview\"><thead><tr>"
        b += columns.map { "<th>\(esc($0))</th>" }.joined() + "</tr></thead><tbody>"
        for (e, entry, needs) in ordered(entries, now: now) {
            let placements = snapshot.catalog.placements.filter { $0.audiences.contains { $0.experimentID == e.id } }.map(\.id)
            var name = "<a href=\"/experiments/\(esc(ConsolePage.percentEncode(e.id)))\">\(esc(e.name))</a><br><code>\(esc(e.id))</code>"
            if !needs.isEmpty { name += "<br><span class=\"error\">needs someone: \(esc(needs.joined(separator: "; ")))</span>" }
            b += needs.isEmpty ? "<tr>" : "<tr class=\"needs\">"
            b += cell(0, name) + cell(1, esc(e.status.rawValue)) + cell(2, placements.map { "<code>\(esc($0))</code>" }.joined(separator: " "))
            b += cell(3, esc(e.start.map { String(RFC3339.format($0).prefix(10)) } ?? "—"))
            b += cell(4, e.start.map { String(max(0, Int(now.timeIntervalSince($0) / 86_400))) } ?? "—", attributes: " class=\"num\"")
            if let entry {
                b += entry.digest.cells
            } else {
                b += cell(5, "No figures stored yet: the server that keeps them fresh computes them after it starts and after new events.",
                          attributes: " colspan=\"6\" class=\"muted\"")
            }
            b += "</tr>"
        }
        b += "</tbody></table></div>"
        return b
    }

    static let columns = ["experiment", "status", "placements", "start", "days", "people", "verdict", "primary metric: difference (interval)",
                          "health", "safeguards", "weights"]
    /// A card's label where the header's would run into the cell (the metric cell starts with the metric's name).
    static let cardLabels = [7: "primary metric"]

    /// One cell of the overview, naming its column, so a phone can show a row as a card (the
    /// stylesheet hides the header there).
    static func cell(_ column: Int, _ html: String, attributes: String = "") -> String {
        "<td data-label=\"\(ConsolePage.escape(cardLabels[column] ?? columns[column]))\"\(attributes)>\(html)</td>"
    }
}
