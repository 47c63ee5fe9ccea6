import HTTPTransport

/// `POST /experiments/{id}/shares/{share}/revoke`: ends a share link of that experiment.
struct ConsoleShareRevoke: Responder {
    let gate: ConsoleGate

    func respond(to request: APIRequest) throws -> HandlerOutcome {
        guard let form = ConsoleAccess.form(request.body) else {
            return .response(ConsolePage.message(400, title: "Bad request", "The form could not be read."))
        }
        let viewer: ConsoleViewer
        switch ConsoleAccess.post(request.http, form: form, gate: gate) {
        case .answer(let response): return .response(response)
        case .viewer(let v): viewer = v
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
