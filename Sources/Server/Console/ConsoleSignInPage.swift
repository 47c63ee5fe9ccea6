import HTTPTransport

/// `GET /login`: the sign-in form. It sets a random sign-in cookie whose HMAC is the form's
/// token, so a sign-in posted from anywhere but this page is refused.
struct ConsoleSignInPage: Responder {
    let gate: ConsoleGate

    func respond(to request: APIRequest) throws -> HandlerOutcome {
        guard gate.hostAllowed(request.http) else { return .response(ConsoleAccess.misdirected()) }
        let next = ConsoleGate.localPath((try? QueryString.pairs(request.http.query))?.first { $0.name == "next" }?.value)
        if gate.keys.isEmpty { return .response(ConsolePage.redirect(next)) }
        return .response(Self.page(gate: gate, next: next, status: 200, problem: nil))
    }

    /// The form, with a new sign-in cookie; `problem` says why the last try failed.
    static func page(gate: ConsoleGate, next: String, status: Int, problem: String?, extra: [(String, String)] = []) -> HTTPResponse {
        let nonce = String(decoding: Digest.hex(Digest.randomBytes(16)), as: UTF8.self)
        guard let token = try? gate.signInToken(nonce: nonce) else { return ConsoleAccess.unavailable() }
        var main = "<div class=\"signin\"><h1>Sign in</h1>"
        main += "<p>Sign in with an API key that has the <code>report</code> or <code>admin</code> scope.</p>"
        if let problem { main += "<p class=\"error\" role=\"alert\">\(ConsolePage.escape(problem))</p>" }
        main += "<form method=\"post\" action=\"/login\">"
        main += "<input type=\"hidden\" name=\"form_token\" value=\"\(token)\">"
        main += "<input type=\"hidden\" name=\"next\" value=\"\(ConsolePage.escape(next))\">"
        main += "<p><label for=\"key\">API key</label><input id=\"key\" name=\"key\" type=\"password\" autocomplete=\"current-password\" required></p>"
        main += "<p><button type=\"submit\">Sign in</button></p></form></div>"
        let cookie = ConsoleCookies.set(ConsoleCookies.signIn, nonce, maxAge: 3600, insecure: gate.options.insecureCookie)
        return ConsolePage.response(status, ConsolePage.html(title: "Sign in", viewer: nil, main: main), extra: [cookie] + extra)
    }
}
