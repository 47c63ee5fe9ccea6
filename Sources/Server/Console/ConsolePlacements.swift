import ExperimentDefinitions
import HTTPTransport
import Reporting

/// `GET /placements`: each placement of `placements.json`, its audiences in the order they are
/// read, each one's condition and what it shows (an experiment, a fixed paywall, none), and the
/// placement's default.
struct ConsolePlacements: Responder {
    let gate: ConsoleGate
    let snapshots: SnapshotHolder

    func respond(to request: APIRequest) throws -> HandlerOutcome {
        let viewer: ConsoleViewer
        switch ConsoleAccess.page(request, gate: gate) {
        case .failure(let refusal): return .response(refusal.response)
        case .success(let signedIn): viewer = signedIn
        }
        let catalog = snapshots.snapshot.catalog
        return .response(ConsolePage.response(200, ConsolePage.html(title: "Placements", viewer: viewer, main: Self.main(catalog))))
    }

    static func main(_ catalog: ExperimentCatalog) -> String {
        let esc = ConsolePage.escape
        var b = "<h1>Placements</h1>"
        guard !catalog.placements.isEmpty else { return b + "<p>The experiment folder has no placements.json.</p>" }
        b += "<p class=\"muted\">Audiences are read top to bottom: the first whose condition matches decides.</p>"
        for placement in catalog.placements {
            // Its audiences' order is the order they are read in: class `ordered` keeps the script from sorting it.
            b += "<section><h2><code>\(esc(placement.id))</code></h2>" + HTMLReportRenderer.scrollBox(label: "Audiences of \(placement.id)")
            b += "<table class=\"ordered\"><thead><tr>"
            b += "<th>#</th><th>audience</th><th>condition</th><th>shows</th></tr></thead><tbody>"
            for (n, audience) in placement.audiences.enumerated() {
                b += "<tr><td class=\"num\">\(n + 1)</td><td>\(esc(audience.name))</td>"
                b += "<td>" + (audience.condition.map { "<code>\(esc(String(decoding: JSONWriter.bytes($0), as: UTF8.self)))</code>" } ?? "everyone") + "</td>"
                b += "<td>\(shows(audience.shows, catalog))</td></tr>"
            }
            b += "<tr><td></td><td>default</td><td>anyone else</td><td>\(paywall(placement.defaultPaywall))</td></tr>"
            b += "</tbody></table></div></section>"
        }
        return b
    }

    static func shows(_ shows: Audience.Shows, _ catalog: ExperimentCatalog) -> String {
        let esc = ConsolePage.escape
        switch shows {
        case .experiment(let id):
            let name = catalog.experiments.first { $0.id == id }?.name
            return "experiment <a href=\"/experiments/\(esc(ConsolePage.percentEncode(id)))\"><code>\(esc(id))</code></a>"
                + (name.map { " (\(esc($0)))" } ?? "")
        case .paywall(let paywall):
            return Self.paywall(paywall)
        }
    }

    static func paywall(_ paywall: Paywall?) -> String {
        guard let paywall else { return "no paywall" }
        let esc = ConsolePage.escape
        return "paywall <code>\(esc(paywall.offering))</code>, \(paywall.trialDays)-day trial, \(esc(paywall.discountFraming.rawValue))"
    }
}
