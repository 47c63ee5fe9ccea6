import Events
import HTTPTransport

/// `POST /experiments/{id}/safeguards/reset` (form field `arm`): lifts the safeguard stop in force
/// of that arm, recorded with `reset_by` the key's name; `admin` only. Every node reads the stops
/// again within its poll; this one at once.
struct ConsoleSafeguardReset: Responder {
    let gate: ConsoleGate
    let snapshots: SnapshotHolder
    let safeguards: SafeguardService

    func respond(to request: APIRequest) throws -> HandlerOutcome {
        let form: [(name: String, value: String)], viewer: ConsoleViewer
        switch ConsoleAccess.post(request, gate: gate) {
        case .failure(let refusal): return .response(refusal.response)
        case .success(let posted): (form, viewer) = posted
        }
        guard viewer.scopes.contains(.admin) else {
            return .response(ConsoleAccess.forbidden("Lifting a safeguard stop needs a key with the admin scope."))
        }
        let id = request.captures["id"] ?? ""
        let snapshot = snapshots.snapshot
        guard let experiment = snapshot.experimentsByID[id] else {
            return .response(ConsolePage.message(404, title: "No such experiment", snapshot.catalog.unknownExperimentMessage(id), viewer: viewer))
        }
        let arm = form.first { $0.name == "arm" }?.value ?? ""
        let lifted: Int
        do {
            lifted = try gate.store.resetSafeguardStops(experiment: experiment.id, arm: arm, by: viewer.name ?? "console",
                                                         at: Timestamp(gate.options.now()))
        } catch {
            return .response(ConsoleAccess.unavailable())
        }
        guard lifted > 0 else {
            return .response(ConsolePage.message(404, title: "No stop in force",
                                                 "\(experiment.id) has no safeguard stop in force on '\(arm)'.", viewer: viewer))
        }
        safeguards.refreshStops()
        return .response(ConsolePage.redirect("/experiments/" + ConsolePage.percentEncode(experiment.id)))
    }
}
