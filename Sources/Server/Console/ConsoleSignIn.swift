import HTTPTransport

/// `POST /login`: a new session for a key with `report` or `admin`, its id in `abctl_session`.
/// Checks the `Origin` and the form's token first, then the throttle on the address, then the key.
struct ConsoleSignIn: Responder {
    let gate: ConsoleGate
    let log: Log

    func respond(to request: APIRequest) throws -> HandlerOutcome {
        let http = request.http
        guard gate.hostAllowed(http) else { return .response(ConsoleAccess.misdirected()) }
        guard gate.originAllowed(http) else {
            return .response(ConsoleAccess.forbidden("The sign-in did not come from this console's own page (its Origin)."))
        }
        guard let form = ConsoleAccess.form(request.body) else {
            return .response(ConsolePage.message(400, title: "Bad request", "The form could not be read."))
        }
        func field(_ name: String) -> String? { form.first { $0.name == name }?.value }
        let next = ConsoleGate.localPath(field("next"))
        if gate.keys.isEmpty { return .response(ConsolePage.redirect(next)) }
        guard let nonce = ConsoleCookies.value(ConsoleCookies.signIn, in: http.header("Cookie")), ConsoleGate.isSessionID(nonce),
              let expected = try? gate.signInToken(nonce: nonce), ConsoleGate.tokenMatches(field("form_token"), expected) else {
            return .response(ConsoleAccess.forbidden("The sign-in form's token is missing or wrong; open the sign-in page again."))
        }
        let client = gate.clientAddress(http)
        let outcome: ConsoleGate.SignIn
        do { outcome = try gate.signIn(key: field("key") ?? "", address: ClientAddress.throttleKey(client)) } catch {
            return .response(ConsoleAccess.unavailable())
        }
        switch outcome {
        case .throttled:
            log.write(level: .warning, "console sign-in throttled", ["address": .string(client ?? "unknown"), "counted_as": .string(ClientAddress.throttleKey(client))])
            return .response(ConsolePage.message(429, title: "Too many sign-ins",
                                                 "Too many failed sign-ins from this address in the last minute; wait a minute and try again.",
                                                 extra: [("Retry-After", String(ConsoleOptions.throttleWindowSeconds))]))
        case .refused(let why):
            return .response(ConsoleSignInPage.page(gate: gate, next: next, status: 401, problem: why))
        case .signedIn(let session):
            let insecure = gate.options.insecureCookie
            return .response(ConsolePage.redirect(next, extra: [
                ConsoleCookies.set(ConsoleCookies.session, session.id, maxAge: Int(session.expiresAt - session.createdAt), insecure: insecure),
                ConsoleCookies.set(ConsoleCookies.signIn, "", maxAge: 0, insecure: insecure),
            ]))
        }
    }
}
