import Events
import ExperimentDefinitions
import Foundation
import HTTPTransport
import Reporting

/// `GET /share/{id}`: one experiment's report with the share's parameters, read only, for someone
/// without a key; nothing else (no form, no file, no other page). A share that never was, was
/// revoked, has expired or whose key is gone is the same 404 page. A share of the default
/// parameters shows the stored report, as the experiment's page does; others are computed.
struct ConsoleSharePage: Responder {
    let gate: ConsoleGate
    let snapshots: SnapshotHolder
    let reports: ConsoleReports
    let refreshSeconds: Double

    static func gone() -> HTTPResponse {
        ConsolePage.response(404, ConsolePage.html(title: "No such share link", viewer: nil,
                                                   main: "<h1>No such share link</h1><p>This share link does not exist or has ended.</p>"))
    }

    func respond(to request: APIRequest) throws -> HandlerOutcome {
        guard gate.hostAllowed(request.http) else { return .response(ConsoleAccess.misdirected()) }
        let id = request.captures["id"] ?? ""
        let share: ConsoleShare
        do {
            guard ConsoleGate.isShareID(id), let found = try gate.store.share(id: id), try gate.isLive(found) else { return .response(Self.gone()) }
            share = found
        } catch {
            return .response(ConsoleAccess.unavailable())
        }
        let snapshot = snapshots.snapshot
        guard let experiment = snapshot.experimentsByID[share.experiment] else { return .response(Self.gone()) }
        var options = reports.options(snapshot)
        do {
            try ReportParameters.apply(try QueryString.pairs(share.parameters), to: &options, experiment: experiment, spell: \.name)
        } catch {
            // The folder changed since (a segment gone): the share cannot give the same figures.
            return .response(Self.gone())
        }
        let asked = options
        let expires = RFC3339.format(Date(timeIntervalSince1970: TimeInterval(share.expiresAt)))
        let heading = "<p class=\"muted\">A shared report, read only, until \(ConsolePage.escape(expires)).</p>"
        if share.parameters.isEmpty, let stored = reports.stored(experiment.id) {
            let asOf = "<p class=\"muted\">\(ConsolePage.escape(ConsoleReports.asOfLine(stored, refreshSeconds: refreshSeconds)))</p>"
            return .response(ConsolePage.response(200, Self.html(title: experiment.name, main: heading + asOf + stored.body)))
        }
        return .deferred { [reports] respond in
            let started = reports.one(experiment, options: asked, done: { outcome in
                switch outcome {
                case .report(let report):
                    respond(ConsolePage.response(200, Self.html(title: experiment.name, main: heading + HTMLReportRenderer.body(report))))
                case .failed(let why):
                    respond(ConsolePage.message(503, title: "Unavailable", why, extra: [("Retry-After", "5")]))
                }
            })
            if !started {
                let wait = reports.onRequest.retryAfterSeconds
                respond(ConsolePage.message(503, title: "Busy", "This server is computing reports already; retry in \(wait) s.",
                                            extra: [("Retry-After", String(wait))]))
            }
        }
    }

    /// A page without the console's links: a shared report leads nowhere else.
    static func html(title: String, main: String) -> String {
        ConsolePage.document(title: title, top: "", main: main)
    }
}
