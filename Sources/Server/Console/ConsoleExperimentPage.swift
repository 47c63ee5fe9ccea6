import Events
import ExperimentDefinitions
import Foundation
import HTTPTransport
import Reporting

/// `GET /experiments/{id}`: the report as the HTML report's document, under a form of the report
/// parameters (`until`, `since`, `by`, `alpha`, `min_segment_users`) sent by GET, so the page's
/// URL is the query and a link gives the same figures. With the default parameters the page shows
/// the stored report (`ConsoleRefresher`) and says as of when; with others it computes one on the
/// API's report threads, and beyond their bound shows the stored figures with a line saying so.
/// A bad parameter is shown in the form with the words the CLI and the API use; an unknown
/// experiment is a 404 page naming the nearest id. Below the report: the next step as the edit to
/// the file, the file as loaded and its history.
struct ConsoleExperimentPage: Responder {
    let gate: ConsoleGate
    let snapshots: SnapshotHolder
    let reports: ConsoleReports
    let histories: ConsoleFileHistories
    let refreshSeconds: Double

    /// What the page shows under its form: the report's HTML, the arms whose stop is in force,
    /// and a line above them when they are the stored figures.
    struct Shown {
        var body: String
        var stoppedArms: [String]
        var note: String?
        /// The verdict and its winner, which the next step is read from; nil when a stored
        /// summary could not be read.
        var decision: (verdict: Decision.Verdict, winner: String?)?

        init(_ report: Report) {
            body = HTMLReportRenderer.body(report)
            stoppedArms = report.safeguards.filter(\.inForce).map(\.arm)
            decision = (report.decision.verdict, report.decision.winner)
        }

        /// `stoppedArms` from the stops in force now (a stored report may predate a reset).
        init(stored: StoredConsoleReport, stoppedArms: [String], note: String) {
            body = stored.body
            self.stoppedArms = stoppedArms
            self.note = note
            decision = (try? ConsoleDigest(json: stored.summary)).map { ($0.verdict, $0.winner) }
        }
    }

    /// The experiment's file as the page shows it: its text as loaded and the history kept for it.
    struct FileView: Sendable {
        var path: String
        var contents: [UInt8]?
        let histories: ConsoleFileHistories

        var sections: String {
            let history = contents.flatMap { histories.history(path: path, contents: $0) }
            return ConsoleFileSections.file(contents, path: path) + ConsoleFileSections.history(history, reading: contents != nil)
        }
    }

    func respond(to request: APIRequest) throws -> HandlerOutcome {
        let viewer: ConsoleViewer
        switch ConsoleAccess.page(request, gate: gate) {
        case .failure(let refusal): return .response(refusal.response)
        case .success(let signedIn): viewer = signedIn
        }
        let id = request.captures["id"] ?? ""
        let snapshot = snapshots.snapshot
        guard let experiment = snapshot.experimentsByID[id] else {
            return .response(ConsolePage.message(404, title: "No such experiment", snapshot.catalog.unknownExperimentMessage(id), viewer: viewer))
        }
        let file = FileView(path: experiment.sourcePath, contents: snapshot.sources[id], histories: histories)
        // A GET form sends its empty fields: they mean the default.
        let pairs: [(name: String, value: String)]
        do {
            pairs = try QueryString.pairs(request.http.query).filter { !$0.value.isEmpty }
        } catch {
            return .response(page(experiment, file: file, viewer: viewer, pairs: [], problem: (parameter: "query", message: "malformed query string"), shown: nil, status: 400))
        }
        var options = reports.options(snapshot)
        do {
            try ReportParameters.apply(pairs, to: &options, experiment: experiment, spell: \.name)
        } catch {
            return .response(page(experiment, file: file, viewer: viewer, pairs: pairs, problem: (parameter: error.parameter, message: error.message), shown: nil, status: 400))
        }
        let stopped = snapshot.stops.filter { $0.experiment == experiment.id }.map(\.arm)
        if pairs.isEmpty, let stored = reports.stored(experiment.id) {
            let shown = Shown(stored: stored, stoppedArms: stopped,
                              note: ConsoleReports.asOfLine(stored, refreshSeconds: refreshSeconds))
            return .response(page(experiment, file: file, viewer: viewer, pairs: pairs, problem: nil, shown: shown, status: 200))
        }
        let asked = options
        return .deferred { [reports, refreshSeconds] respond in
            let started = reports.one(experiment, options: asked, done: { outcome in
                switch outcome {
                case .report(let report):
                    respond(page(experiment, file: file, viewer: viewer, pairs: pairs, problem: nil, shown: Shown(report), status: 200))
                case .failed(let why):
                    respond(ConsolePage.message(503, title: "Unavailable", why, viewer: viewer, extra: [("Retry-After", "5")]))
                }
            })
            let wait = reports.onRequest.retryAfterSeconds
            if !started, let stored = reports.stored(experiment.id) {
                // Beyond the bound: the stored figures, saying they are not the ones asked.
                let note = "This server is computing \(reports.onRequest.width) reports already, so these are the stored figures "
                    + "with the default parameters, not the ones asked; retry in \(wait) s for those. "
                    + ConsoleReports.asOfLine(stored, refreshSeconds: refreshSeconds)
                respond(page(experiment, file: file, viewer: viewer, pairs: pairs, problem: nil,
                             shown: Shown(stored: stored, stoppedArms: stopped, note: note), status: 200))
            } else if !started {
                respond(ConsolePage.message(503, title: "Busy", "This server is computing \(reports.onRequest.width) reports already; retry in \(wait) s.",
                                            viewer: viewer, extra: [("Retry-After", String(wait))]))
            }
        }
    }

    func page(_ e: Experiment, file: FileView, viewer: ConsoleViewer, pairs: [(name: String, value: String)], problem: (parameter: String, message: String)?,
              shown: Shown?, status: Int) -> HTTPResponse {
        var main = Self.form(e, pairs: pairs, problem: problem)
        if shown != nil, let token = viewer.formToken { main += shares(e, pairs: pairs, token: token) }
        if let shown, viewer.scopes.contains(.admin) { main += Self.resets(e, arms: shown.stoppedArms, token: viewer.formToken) }
        if let shown {
            if let note = shown.note { main += "<p class=\"muted\" role=\"status\">\(ConsolePage.escape(note))</p>" }
            main += shown.body
            if let decision = shown.decision {
                main += ConsoleNextStep(verdict: decision.verdict, winner: decision.winner, file: e).html
            }
        } else {
            main += "<h1>\(ConsolePage.escape(e.name))</h1><p><code>\(ConsolePage.escape(e.id))</code></p>"
        }
        main += file.sections
        return ConsolePage.response(status, ConsolePage.html(title: e.name, viewer: viewer, main: main))
    }

    /// The share links of the experiment still live, each with its revoke form, and the form that
    /// makes one of the report as shown.
    func shares(_ e: Experiment, pairs: [(name: String, value: String)], token: String) -> String {
        let esc = ConsolePage.escape
        let page = "/experiments/" + ConsolePage.percentEncode(e.id)
        let query = pairs.map { ConsolePage.percentEncode($0.name) + "=" + ConsolePage.percentEncode($0.value) }.joined(separator: "&")
        var b = "<details class=\"shares\"><summary>Share links</summary>"
        b += "<form method=\"post\" action=\"\(esc(page))/share\"><input type=\"hidden\" name=\"form_token\" value=\"\(esc(token))\">"
        b += "<input type=\"hidden\" name=\"parameters\" value=\"\(esc(query))\">"
        b += "<p><label for=\"share-days\">days</label><input id=\"share-days\" name=\"days\" type=\"number\" min=\"1\" max=\"\(ConsoleGate.maximumShareDays)\" value=\"\(ConsoleGate.defaultShareDays)\"></p>"
        b += "<p><button type=\"submit\">Make a share link of this report</button></p></form>"
        let live = ((try? gate.store.shares(experiment: e.id)) ?? []).filter { (try? gate.isLive($0)) == true }
        if live.isEmpty {
            b += "<p class=\"muted\">No share link of this experiment is live.</p>"
        } else {
            b += "<ul>"
            for share in live {
                let until = RFC3339.format(Date(timeIntervalSince1970: TimeInterval(share.expiresAt)))
                b += "<li><a href=\"/share/\(esc(share.id))\"><code>/share/\(esc(share.id))</code></a> · \(share.parameters.isEmpty ? "default parameters" : "<code>\(esc(share.parameters))</code>") · until \(esc(until))"
                b += "<form method=\"post\" action=\"\(esc(page))/shares/\(esc(share.id))/revoke\"><input type=\"hidden\" name=\"form_token\" value=\"\(esc(token))\"><button type=\"submit\">Revoke</button></form></li>"
            }
            b += "</ul>"
        }
        return b + "</details>"
    }

    /// For an admin, a form per arm whose safeguard stop is in force, lifting it.
    static func resets(_ e: Experiment, arms stopped: [String], token: String?) -> String {
        let esc = ConsolePage.escape
        let arms = Set(stopped).sorted()
        return arms.map { arm in
            "<form class=\"params\" method=\"post\" action=\"/experiments/\(esc(ConsolePage.percentEncode(e.id)))/safeguards/reset\">"
                + (token.map { "<input type=\"hidden\" name=\"form_token\" value=\"\(esc($0))\">" } ?? "")
                + "<input type=\"hidden\" name=\"arm\" value=\"\(esc(arm))\">"
                + "<p>The safeguard stop of <code>\(esc(arm))</code> is in force.</p><p><button type=\"submit\">Lift the stop of \(esc(arm))</button></p></form>"
        }.joined()
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
