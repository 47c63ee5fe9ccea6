import HTTPTransport

/// `GET /assets/{file}`: the stylesheet under its content-hashed name, cached for a year; any
/// other name is 404.
struct ConsoleStylesheetHandler: Responder {
    func respond(to request: APIRequest) throws -> HandlerOutcome {
        guard request.captures["file"] == ConsoleStylesheet.fileName else {
            return .response(ConsolePage.message(404, title: "Not found", "There is no such file."))
        }
        return .response(HTTPResponse(status: 200, contentType: "text/css; charset=utf-8",
                                      headers: ConsolePage.headers(noStore: false) + [("Cache-Control", "public, max-age=31536000, immutable")],
                                      body: ConsoleStylesheet.bytes))
    }
}
