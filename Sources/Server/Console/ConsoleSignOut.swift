import HTTPTransport

/// `POST /logout`: revokes the session (every node sees it revoked) and ends the cookie.
struct ConsoleSignOut: Responder {
    let gate: ConsoleGate

    func respond(to request: APIRequest) throws -> HandlerOutcome {
        switch ConsoleAccess.post(request, gate: gate) {
        case .failure(let refusal):
            return .response(refusal.response)
        case .success(let posted):
            guard let id = posted.viewer.sessionID else { return .response(ConsolePage.redirect("/")) }
            do { try gate.signOut(session: id) } catch { return .response(ConsoleAccess.unavailable()) }
            return .response(ConsolePage.redirect("/login", extra: [
                ConsoleCookies.set(ConsoleCookies.session, "", maxAge: 0, insecure: gate.options.insecureCookie)]))
        }
    }
}
