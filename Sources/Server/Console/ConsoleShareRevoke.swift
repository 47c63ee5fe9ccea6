import HTTPTransport

/// `POST /experiments/{id}/shares/{share}/revoke`: ends a share link of that experiment.
struct ConsoleShareRevoke: Responder {
    let gate: ConsoleGate

    func respond(to request: APIRequest) throws -> HandlerOutcome {
        let viewer: ConsoleViewer
        switch ConsoleAccess.post(request, gate: gate) {
        case .failure(let refusal): return .response(refusal.response)
        case .success(let posted): viewer = posted.viewer
        }
        let experiment = request.captures["id"] ?? "", id = request.captures["share"] ?? ""
        do {
            guard ConsoleGate.isShareID(id), let share = try gate.store.share(id: id), share.experiment == experiment else {
                return .response(ConsolePage.message(404, title: "No such share link", "This experiment has no such share link.", viewer: viewer))
            }
            try gate.store.revokeShare(id: share.id, at: gate.now)
        } catch {
            return .response(ConsoleAccess.unavailable())
        }
        return .response(ConsolePage.redirect("/experiments/" + ConsolePage.percentEncode(experiment)))
    }
}
