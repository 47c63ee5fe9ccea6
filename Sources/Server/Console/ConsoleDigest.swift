import ExperimentDefinitions
import Foundation
import Reporting

/// What the console keeps of a report for the overview: the figures its row shows, already
/// written as the row's cells, and the few facts that decide whether the experiment needs someone
/// and where its row goes. Kept in the store as JSON (`StoredConsoleReport.summary`), so every node
/// reads the same row without computing the report again.
struct ConsoleDigest: Sendable, Equatable {
    var users: Int
    var verdict: Decision.Verdict
    /// The arm a `ship` verdict names.
    var winner: String?
    var eta: Date?
    var lastExposure: Date?
    /// The arms whose safeguard stop is in force, with the metric that stopped each.
    var stops: [Stop]
    var alerts: Int
    /// The row's cells from people to weights, as HTML.
    var cells: String

    struct Stop: Sendable, Equatable {
        var arm: String
        var metric: String
    }

    init(_ r: Report) {
        users = r.users
        verdict = r.decision.verdict
        winner = r.decision.winner
        eta = r.decision.eta
        lastExposure = r.lastExposure
        stops = r.safeguards.filter(\.inForce).map { Stop(arm: $0.arm, metric: $0.metric) }
        alerts = r.health.filter { $0.level == .alert }.count
        cells = Self.cells(r)
    }

    struct Unreadable: Error, CustomStringConvertible {
        var field: String
        var description: String { "the stored console summary's '\(field)' is missing or malformed" }
    }

    init(json text: String) throws {
        guard case .object(let members) = try JSONReader.parse(text).value else { throw Unreadable(field: "summary") }
        let fields = JSONBody.dictionary(members)
        func number(_ key: String) throws -> Int {
            guard case .number(let n)? = fields[key] else { throw Unreadable(field: key) }
            return Int(n)
        }
        func date(_ key: String) throws -> Date? {
            switch fields[key] {
            case .null?, nil: return nil
            case .string(let s)?: guard let d = RFC3339.parse(s) else { throw Unreadable(field: key) }; return d
            default: throw Unreadable(field: key)
            }
        }
        guard case .string(let code)? = fields["verdict"], let verdict = Decision.Verdict(rawValue: code) else { throw Unreadable(field: "verdict") }
        guard case .string(let cells)? = fields["cells"] else { throw Unreadable(field: "cells") }
        guard case .array(let stops)? = fields["stops"] else { throw Unreadable(field: "stops") }
        self.users = try number("users")
        self.verdict = verdict
        switch fields["winner"] {
        case .null?, nil: self.winner = nil
        case .string(let arm)?: self.winner = arm
        default: throw Unreadable(field: "winner")
        }
        self.eta = try date("eta")
        self.lastExposure = try date("last_exposure")
        self.alerts = try number("alerts")
        self.cells = cells
        self.stops = try stops.map { stop in
            guard case .object(let pair) = stop, case .string(let arm)? = JSONBody.dictionary(pair)["arm"],
                  case .string(let metric)? = JSONBody.dictionary(pair)["metric"] else { throw Unreadable(field: "stops") }
            return Stop(arm: arm, metric: metric)
        }
    }

    var json: String {
        JSONValue.object([
            ("users", .number(Double(users))),
            ("verdict", .string(verdict.rawValue)),
            ("winner", winner.map { .string($0) } ?? .null),
            ("eta", eta.map { .string(RFC3339.format($0)) } ?? .null),
            ("last_exposure", lastExposure.map { .string(RFC3339.format($0)) } ?? .null),
            ("stops", .array(stops.map { .object([("arm", .string($0.arm)), ("metric", .string($0.metric))]) })),
            ("alerts", .number(Double(alerts))),
            ("cells", .string(cells)),
        ]).serialized()
    }

    /// The overview row's cells of a report: people, verdict, the primary metric's difference per
    /// arm, health, safeguards, weights.
    static func cells(_ r: Report) -> String {
        let esc = ConsolePage.escape
        func cell(_ column: Int, _ html: String, attributes: String = "") -> String { ConsoleOverview.cell(column, html, attributes: attributes) }
        let summary = ReportSummary(r)
        var verdict = "<span class=\"verdict-\(esc(summary.verdictCode))\">\(esc(summary.verdict))</span>"
        if let eta = summary.eta { verdict += "<br><span class=\"ci\">\(esc(eta))</span>" }
        let arms = summary.arms.map { arm in
            "<li><code>\(esc(arm.variant))</code> \(esc(arm.difference)) <span class=\"ci\">\(esc(arm.interval))</span> \(intervalPlot(arm))</li>"
        }.joined()
        let alerts = r.health.filter { $0.level == .alert }.count, warnings = r.health.filter { $0.level == .warning }.count
        let stops = r.safeguards.filter(\.inForce)
        return cell(5, String(r.users), attributes: " class=\"num\"")
            + cell(6, verdict, attributes: " class=\"verdict-cell\"")
            + cell(7, "<span class=\"ci\">\(esc(summary.primaryMetric))</span><ul class=\"arms\">\(arms)</ul>", attributes: " class=\"metric-cell\"")
            + cell(8, alerts == 0 && warnings == 0 ? "ok" : "\(alerts) alert\(alerts == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s")")
            + cell(9, stops.isEmpty ? "—" : stops.map { "<code>\(esc($0.arm))</code> stopped on \(esc($0.metric))" }.joined(separator: "<br>"))
            + cell(10, r.allocation.flatMap { a in a.periods.last.map { weights(a.variants, $0.weights) } } ?? "—")
    }

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
