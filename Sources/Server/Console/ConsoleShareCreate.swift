import Events
import HTTPTransport
import Reporting

/// `POST /experiments/{id}/share` (form fields `days`, 14 by default and at most 90, and
/// `parameters`, the page's report query): stores a share link of that experiment's report with
/// those parameters, made by the session's key, and goes back to the page that lists it.
struct ConsoleShareCreate: Responder {
    let gate: ConsoleGate
    let snapshots: SnapshotHolder

    func respond(to request: APIRequest) throws -> HandlerOutcome {
        let form: [(name: String, value: String)], viewer: ConsoleViewer
        switch ConsoleAccess.post(request, gate: gate) {
        case .failure(let refusal): return .response(refusal.response)
        case .success(let posted): (form, viewer) = posted
        }
        let id = request.captures["id"] ?? ""
        let snapshot = snapshots.snapshot
        guard let experiment = snapshot.experimentsByID[id] else {
            return .response(ConsolePage.message(404, title: "No such experiment", snapshot.catalog.unknownExperimentMessage(id), viewer: viewer))
        }
        guard let keyHMAC = viewer.keyHMAC else {
            return .response(ConsoleAccess.forbidden("Share links are made by a signed-in key; this server has no keys."))
        }
        func field(_ name: String) -> String? { form.first { $0.name == name }?.value }
        let daysText = field("days").flatMap { $0.isEmpty ? nil : $0 } ?? String(ConsoleGate.defaultShareDays)
        guard let days = Int(daysText), (1...ConsoleGate.maximumShareDays).contains(days) else {
            return .response(ConsolePage.message(400, title: "Bad request",
                                                 "'days' must be a whole number from 1 to \(ConsoleGate.maximumShareDays), got '\(daysText)'.", viewer: viewer))
        }
        let pairs: [(name: String, value: String)]
        do {
            pairs = try QueryString.pairs(field("parameters")).filter { !$0.value.isEmpty }
            var options = ReportOptions()
            try ReportParameters.apply(pairs, to: &options, experiment: experiment, spell: \.name)
        } catch let invalid as ReportParameters.Invalid {
            return .response(ConsolePage.message(400, title: "Bad request", invalid.message, viewer: viewer))
        } catch {
            return .response(ConsolePage.message(400, title: "Bad request", "malformed report parameters", viewer: viewer))
        }
        let parameters = pairs.map { ConsolePage.percentEncode($0.name) + "=" + ConsolePage.percentEncode($0.value) }.joined(separator: "&")
        let now = gate.now
        let share = ConsoleShare(id: ConsoleGate.newShareID(), experiment: experiment.id, parameters: parameters, keyHMAC: keyHMAC,
                                 createdAt: now, expiresAt: now + Int64(days) * 86_400)
        do { try gate.store.createShare(share) } catch { return .response(ConsoleAccess.unavailable()) }
        let page = "/experiments/" + ConsolePage.percentEncode(experiment.id)
        return .response(ConsolePage.redirect(parameters.isEmpty ? page : page + "?" + parameters))
    }
}
