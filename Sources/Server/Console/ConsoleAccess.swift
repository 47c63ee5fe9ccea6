import HTTPTransport

/// The steps every console request takes before its page: the `Host` of a server without keys
/// (421), then, for a page, a session (else 303 to sign-in with `next`), and for a POST its
/// `Origin` and `form_token` (403).
enum ConsoleAccess {
    static func misdirected() -> HTTPResponse {
        ConsolePage.message(421, title: "Misdirected request",
                            "This server has no API keys, so its console answers only on a loopback name (localhost, 127.0.0.1, [::1]).")
    }

    static func unavailable() -> HTTPResponse {
        ConsolePage.message(503, title: "Unavailable", "The event store cannot be read right now; retry in a moment.", extra: [("Retry-After", "5")])
    }

    static func forbidden(_ why: String) -> HTTPResponse {
        ConsolePage.message(403, title: "Refused", why + " Nothing was changed.")
    }

    /// A signed-in page (every GET but sign-in, the stylesheet and a share link's): the viewer, or
    /// the answer that refuses it (a `Host` not allowed, no session: 303 to sign-in with `next`).
    static func page(_ request: APIRequest, gate: ConsoleGate) -> Result<ConsoleViewer, Refusal> {
        let http = request.http
        guard gate.hostAllowed(http) else { return .failure(Refusal(response: misdirected())) }
        do {
            if let viewer = try gate.viewer(http) { return .success(viewer) }
        } catch {
            return .failure(Refusal(response: unavailable()))
        }
        var target = http.path
        if let query = http.query, !query.isEmpty { target += "?" + query }
        return .failure(Refusal(response: ConsolePage.redirect("/login?next=" + ConsolePage.percentEncode(target))))
    }

    /// A signed-in page's POST read whole: its form and viewer, or the answer that refuses it (a form
    /// that cannot be read, a wrong `Origin` or `form_token`, no session).
    static func post(_ request: APIRequest, gate: ConsoleGate) -> Result<(form: [(name: String, value: String)], viewer: ConsoleViewer), Refusal> {
        func refuse(_ response: HTTPResponse) -> Result<(form: [(name: String, value: String)], viewer: ConsoleViewer), Refusal> {
            .failure(Refusal(response: response))
        }
        guard let form = form(request.body) else { return refuse(ConsolePage.message(400, title: "Bad request", "The form could not be read.")) }
        let http = request.http
        guard gate.hostAllowed(http) else { return refuse(misdirected()) }
        guard gate.originAllowed(http) else { return refuse(forbidden("The request did not come from this console's own pages (its Origin).")) }
        let viewer: ConsoleViewer?
        do { viewer = try gate.viewer(http) } catch { return refuse(unavailable()) }
        guard let viewer else { return refuse(ConsolePage.redirect("/login")) }
        if let expected = viewer.formToken {
            guard ConsoleGate.tokenMatches(form.first(where: { $0.name == "form_token" })?.value, expected) else {
                return refuse(forbidden("The form's token is missing or wrong; reload the page and try again."))
            }
        }
        return .success((form, viewer))
    }

    /// The answer a refused page or POST gets.
    struct Refusal: Error {
        var response: HTTPResponse
    }

    /// The fields of a form body (`application/x-www-form-urlencoded`); nil when malformed.
    static func form(_ body: [UInt8]) -> [(name: String, value: String)]? {
        guard let text = String(validating: body, as: UTF8.self) else { return nil }
        return try? QueryString.pairs(text)
    }
}
