import ExperimentDefinitions
import Foundation
import HTTPTransport
import Reporting

/// `GET /experiments/{id}`: the report as the HTML report's document, under a form of the report
/// parameters (`until`, `since`, `by`, `alpha`, `min_segment_users`) sent by GET, so the page's
/// URL is the query and a link gives the same figures. A bad parameter is shown in the form with
/// the words the CLI and the API use; an unknown experiment is a 404 page naming the nearest id.
struct ConsoleExperimentPage: Responder {
    let gate: ConsoleGate
    let snapshots: SnapshotHolder
    let reports: ConsoleReports

    func respond(to request: APIRequest) throws -> HandlerOutcome {
        let viewer: ConsoleViewer
        switch ConsoleAccess.page(request.http, gate: gate) {
        case .answer(let response): return .response(response)
        case .viewer(let v): viewer = v
        }
        let id = request.captures["id"] ?? ""
        let snapshot = snapshots.snapshot
        guard let experiment = snapshot.experimentsByID[id] else {
            return .response(ConsolePage.message(404, title: "No such experiment", snapshot.catalog.unknownExperimentMessage(id), viewer: viewer))
        }
        // A GET form sends its empty fields: they mean the default.
        let pairs: [(name: String, value: String)]
        do {
            pairs = try QueryString.pairs(request.http.query).filter { !$0.value.isEmpty }
        } catch {
            return .response(page(experiment, viewer: viewer, pairs: [], problem: (parameter: "query", message: "malformed query string"), report: nil, status: 400))
        }
        var options = reports.options(snapshot)
        do {
            try ReportParameters.apply(pairs, to: &options, experiment: experiment, spell: \.name)
        } catch {
            return .response(page(experiment, viewer: viewer, pairs: pairs, problem: (parameter: error.parameter, message: error.message), report: nil, status: 400))
        }
        let asked = options
        return .deferred { [reports] respond in
            let started = reports.one(experiment, options: asked, done: { outcome in
                switch outcome {
                case .report(let report):
                    respond(page(experiment, viewer: viewer, pairs: pairs, problem: nil, report: report, status: 200))
                case .failed(let why):
                    respond(ConsolePage.message(503, title: "Unavailable", why, viewer: viewer, extra: [("Retry-After", "5")]))
                }
            })
            if !started {
                let wait = reports.onRequest.retryAfterSeconds
                respond(ConsolePage.message(503, title: "Busy", "This server is computing \(reports.onRequest.width) reports already; retry in \(wait) s.",
                                            viewer: viewer, extra: [("Retry-After", String(wait))]))
            }
        }
    }

    func page(_ e: Experiment, viewer: ConsoleViewer, pairs: [(name: String, value: String)], problem: (parameter: String, message: String)?,
              report: Report?, status: Int) -> HTTPResponse {
        var main = Self.form(e, pairs: pairs, problem: problem)
        if let report {
            main += HTMLReportRenderer.body(report)
        } else {
            main += "<h1>\(ConsolePage.escape(e.name))</h1><p><code>\(ConsolePage.escape(e.id))</code></p>"
        }
        return ConsolePage.response(status, ConsolePage.html(title: e.name, viewer: viewer, main: main))
    }

    /// The report parameters as a GET form, holding the values asked.
    static func form(_ e: Experiment, pairs: [(name: String, value: String)], problem: (parameter: String, message: String)?) -> String {
        let esc = ConsolePage.escape
        var b = "<form class=\"params\" method=\"get\" action=\"/experiments/\(esc(ConsolePage.percentEncode(e.id)))\" aria-label=\"Report parameters\">"
        for parameter in ReportParameters.all {
            let value = pairs.filter { $0.name == parameter.name }.map(\.value).joined(separator: ",")
            let fieldID = "p-" + parameter.name
            let invalid = problem?.parameter == parameter.name
            b += "<p><label for=\"\(fieldID)\">\(esc(parameter.name))</label>"
            b += "<input id=\"\(fieldID)\" name=\"\(esc(parameter.name))\" value=\"\(esc(value))\" placeholder=\"\(esc(parameter.defaultValue ?? parameter.valueName))\" title=\"\(esc(parameter.help))\""
            b += invalid ? " aria-invalid=\"true\" aria-describedby=\"problem\">" : ">"
            b += "</p>"
        }
        b += "<p><button type=\"submit\">Show</button></p></form>"
        if let problem { b += "<p id=\"problem\" class=\"error\" role=\"alert\">\(esc(problem.message))</p>" }
        return b
    }
}
