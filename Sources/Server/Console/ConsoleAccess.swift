import HTTPTransport

/// The steps every console request takes before its page: the `Host` of a server without keys
/// (421), then, for a page, a session (else 303 to sign-in with `next`), and for a POST its
/// `Origin` and `form_token` (403).
enum ConsoleAccess {
    enum Outcome {
        case viewer(ConsoleViewer)
        case answer(HTTPResponse)
    }

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

    /// A page: the viewer, or the answer to give instead.
    static func page(_ request: HTTPRequest, gate: ConsoleGate) -> Outcome {
        guard gate.hostAllowed(request) else { return .answer(misdirected()) }
        do {
            if let viewer = try gate.viewer(request) { return .viewer(viewer) }
        } catch {
            return .answer(unavailable())
        }
        var target = request.path
        if let query = request.query, !query.isEmpty { target += "?" + query }
        return .answer(ConsolePage.redirect("/login?next=" + ConsolePage.percentEncode(target)))
    }

    /// A POST of a signed-in page: the viewer when the `Origin` and the `form_token` check out.
    static func post(_ request: HTTPRequest, form: [(name: String, value: String)], gate: ConsoleGate) -> Outcome {
        guard gate.hostAllowed(request) else { return .answer(misdirected()) }
        guard gate.originAllowed(request) else { return .answer(forbidden("The request did not come from this console's own pages (its Origin).")) }
        let viewer: ConsoleViewer?
        do { viewer = try gate.viewer(request) } catch { return .answer(unavailable()) }
        guard let viewer else { return .answer(ConsolePage.redirect("/login")) }
        if let expected = viewer.formToken {
            guard ConsoleGate.tokenMatches(form.first(where: { $0.name == "form_token" })?.value, expected) else {
                return .answer(forbidden("The form's token is missing or wrong; reload the page and try again."))
            }
        }
        return .viewer(viewer)
    }

    /// A signed-in page's POST read whole: its form and viewer, or the answer that refuses it (a form
    /// that cannot be read, a wrong `Origin` or `form_token`, no session).
    static func post(_ request: APIRequest, gate: ConsoleGate) -> Result<(form: [(name: String, value: String)], viewer: ConsoleViewer), Refusal> {
        guard let form = form(request.body) else {
            return .failure(Refusal(response: ConsolePage.message(400, title: "Bad request", "The form could not be read.")))
        }
        switch post(request.http, form: form, gate: gate) {
        case .answer(let response): return .failure(Refusal(response: response))
        case .viewer(let viewer): return .success((form, viewer))
        }
    }

    /// The answer a refused POST gets.
    struct Refusal: Error {
        var response: HTTPResponse
    }

    /// The fields of a form body (`application/x-www-form-urlencoded`); nil when malformed.
    static func form(_ body: [UInt8]) -> [(name: String, value: String)]? {
        guard let text = String(validating: body, as: UTF8.self) else { return nil }
        return try? QueryString.pairs(text)
    }
}
