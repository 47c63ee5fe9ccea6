import Events
import ExperimentDefinitions
import Foundation
import HTTPTransport
import Reporting

/// `GET /placements`: each placement of `placements.json`, its audiences in the order they are
/// read, each one's condition, what it shows (an experiment, a fixed paywall, none) and its share
/// of the placement's exposures in the last 7 days, and the placement's default.
struct ConsolePlacements: Responder {
    let gate: ConsoleGate
    let snapshots: SnapshotHolder
    let exposures: any PlacementExposureCounts
    /// `ABCTL_NOW`; nil: the time of the request.
    let clock: Date?
    let log: Log

    static let windowDays = 7

    func respond(to request: APIRequest) throws -> HandlerOutcome {
        let viewer: ConsoleViewer
        switch ConsoleAccess.page(request, gate: gate) {
        case .failure(let refusal): return .response(refusal.response)
        case .success(let signedIn): viewer = signedIn
        }
        let catalog = snapshots.snapshot.catalog
        let until = Timestamp(clock ?? Date()), since = until.adding(hours: -24 * Double(Self.windowDays))
        var counts: [String: [String: Int]] = [:]
        for placement in catalog.placements {
            do {
                counts[placement.id] = try exposures.exposures(placement: placement.id, since: since, until: until)
            } catch {
                log.write(level: .error, "console placement exposures failed", ["placement": .string(placement.id), "error": .string(String(describing: error))])
            }
        }
        return .response(ConsolePage.response(200, ConsolePage.html(title: "Placements", viewer: viewer, main: Self.main(catalog, counts: counts))))
    }

    /// `counts`: per placement, its exposures of the window by experiment; a placement missing
    /// from it could not be read from the store.
    static func main(_ catalog: ExperimentCatalog, counts: [String: [String: Int]]) -> String {
        let esc = ConsolePage.escape
        var b = "<h1>Placements</h1>"
        guard !catalog.placements.isEmpty else { return b + "<p>The experiment folder has no placements.json.</p>" }
        b += "<p class=\"muted\">Audiences are read top to bottom: the first whose condition matches decides. "
        b += "Each audience's share is of the placement's exposures in the last \(windowDays) days, counted by the two fields an exposure carries: "
        b += "its placement and its experiment. An exposure does not name its audience, so audiences that show the same experiment share one figure, "
        b += "and a fixed paywall or no paywall sends no exposure.</p>"
        for placement in catalog.placements {
            // The placement's exposures, each experiment's and their total (summed once here).
            let exposures = counts[placement.id].map { (byExperiment: $0, total: $0.values.reduce(0, +)) }
            b += "<section><h2><code>\(esc(placement.id))</code></h2>"
            if let total = exposures?.total {
                b += "<p class=\"muted\">\(total) exposure\(total == 1 ? "" : "s") in the last \(windowDays) days.</p>"
            } else {
                b += "<p class=\"error\">The exposures could not be read from the event store; retry in a moment.</p>"
            }
            // Its audiences' order is the order they are read in: class `ordered` keeps the script from sorting it.
            b += HTMLReportRenderer.scrollBox(label: "Audiences of \(placement.id)") + "<table class=\"ordered\"><thead><tr>"
            b += "<th>#</th><th>audience</th><th>condition</th><th>shows</th><th>share of exposures, last \(windowDays) days</th></tr></thead><tbody>"
            for (n, audience) in placement.audiences.enumerated() {
                b += "<tr><td class=\"num\">\(n + 1)</td><td>\(esc(audience.name))</td>"
                b += "<td>" + (audience.condition.map { "<code>\(esc(String(decoding: JSONWriter.bytes($0), as: UTF8.self)))</code>" } ?? "everyone") + "</td>"
                b += "<td>\(shows(audience.shows, catalog))</td><td>\(share(of: audience, at: n, in: placement, exposures))</td></tr>"
            }
            b += "<tr><td></td><td>default</td><td>anyone else</td><td>\(paywall(placement.defaultPaywall))</td><td>sends no exposure</td></tr>"
            if let exposures {
                let shown = Set(placement.audiences.compactMap(\.experimentID))
                let others = exposures.byExperiment.filter { !shown.contains($0.key) }.sorted { $0.key < $1.key }
                if !others.isEmpty {
                    b += "<tr><td></td><td>no audience now</td><td></td><td>"
                    b += others.map { "experiment <code>\(esc($0.key))</code>" }.joined(separator: ", ")
                    b += "</td><td>\(percent(others.map(\.value).reduce(0, +), of: exposures.total))</td></tr>"
                }
            }
            b += "</tbody></table></div></section>"
        }
        return b
    }

    /// An audience's share in words: its experiment's exposures over the placement's; the
    /// audiences it shares its experiment with named; none for a fixed paywall or none.
    static func share(of audience: Audience, at index: Int, in placement: Placement,
                      _ exposures: (byExperiment: [String: Int], total: Int)?) -> String {
        guard let id = audience.experimentID else { return "sends no exposure" }
        guard let exposures else { return "unknown" }
        var text = percent(exposures.byExperiment[id] ?? 0, of: exposures.total)
        let others = placement.audiences.indices.filter { $0 != index && placement.audiences[$0].experimentID == id }
        if !others.isEmpty {
            text += " (together with audience" + (others.count == 1 ? " " : "s ") + others.map { "#\($0 + 1)" }.joined(separator: ", ") + ")"
        }
        return text
    }

    /// "43% (120)", or "no exposures" when the placement had none.
    static func percent(_ count: Int, of total: Int) -> String {
        guard total > 0 else { return "no exposures" }
        return "\(Wording.share(Double(count) / Double(total))) (\(count))"
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
