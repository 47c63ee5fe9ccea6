import HTTPTransport

/// `POST /logout`: revokes the session (every node sees it revoked) and ends the cookie.
struct ConsoleSignOut: Responder {
    let gate: ConsoleGate

    func respond(to request: APIRequest) throws -> HandlerOutcome {
        guard let form = ConsoleAccess.form(request.body) else {
            return .response(ConsolePage.message(400, title: "Bad request", "The form could not be read."))
        }
        switch ConsoleAccess.post(request.http, form: form, gate: gate) {
        case .answer(let response):
            return .response(response)
        case .viewer(let viewer):
            guard let id = viewer.sessionID else { return .response(ConsolePage.redirect("/")) }
            do { try gate.signOut(session: id) } catch { return .response(ConsoleAccess.unavailable()) }
            return .response(ConsolePage.redirect("/login", extra: [
                ConsoleCookies.set(ConsoleCookies.session, "", maxAge: 0, insecure: gate.options.insecureCookie)]))
        }
    }
}
